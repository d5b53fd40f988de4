// `dw mcp`: the server's MCP tools over stdio: each JSON-RPC line from stdin is POSTed to /api/v1/mcp with the configured token, each answer written as a line to stdout.
import { createInterface } from 'node:readline';
import { RequestRefused, type Client } from './client.ts';

interface Message { jsonrpc: '2.0'; id?: string | number | null; method?: string; result?: { protocolVersion?: string } }

export async function serveStdio(client: Client, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<void> {
  let protocolVersion: string | undefined;
  const write = (message: unknown) => output.write(JSON.stringify(message) + '\n');
  const relay = async (line: string) => {
    let message: Message;
    try { message = JSON.parse(line); } catch { write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line is one JSON-RPC message' } }); return; }
    try {
      const res = await client.send('post', '/api/v1/mcp', {
        body: message, headers: { accept: 'application/json, text/event-stream', ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}) },
      });
      const text = await res.text();
      if (!text) return;
      const answer = JSON.parse(text) as Message;
      if (message.method === 'initialize' && answer.result?.protocolVersion) protocolVersion = answer.result.protocolVersion;
      write(answer);
    } catch (err) {
      if (message.id === undefined) return;
      const detail = err instanceof RequestRefused ? `${err.message}${err.hint ? ` (${err.hint})` : ''}` : (err as Error).message;
      write({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: detail } });
    }
  };
  const pending = new Set<Promise<void>>();
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const p = relay(line).finally(() => pending.delete(p));
    pending.add(p);
  }
  await Promise.all(pending);
}
