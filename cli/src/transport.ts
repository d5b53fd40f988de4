// Requests over node:http/https (Node's fetch loads undici on its first call, a fifth of a second of dw's start): an answer shaped like fetch's Response, as far as dw uses it.
import type { IncomingMessage } from 'node:http';

export interface Answer {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** the body as it arrives */
  body: AsyncIterable<Uint8Array>;
}

export interface Sent { method: string; headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal }

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export async function request(url: string, sent: Sent): Promise<Answer> {
  const target = new URL(url);
  const { request: send } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers: Record<string, string | number> = { ...sent.headers };
  if (sent.body !== undefined) headers['content-length'] = Buffer.byteLength(sent.body);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(target, { method: sent.method, headers, signal: sent.signal }, resolve);
    req.on('error', reject);
    req.end(sent.body);
  });
  const status = res.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300, status, statusText: res.statusMessage ?? '',
    headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v; } },
    text: async () => (await collect(res)).toString('utf8'),
    arrayBuffer: async () => { const b = await collect(res); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer; },
    body: res,
  };
}
