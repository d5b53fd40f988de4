// POST /api/v1/mcp: the Model Context Protocol over streamable HTTP (stateless, JSON answers), its tools calling this API back with the caller's own bearer token.
import { Type } from '@sinclair/typebox';
import { defineRoute, problem, reply, type ActivityApi, type AnyRoute } from '../../sdk/index.ts';
import { buildMcpServer, type ToolCall } from './server.ts';
import type { ApiCaller } from './tools.ts';

/** the header that marks a request as made through MCP: the activity log shows channel "mcp" for it */
export const channelHeader = 'dockwright-channel';

export interface McpRouteOptions {
  /** this service's own address (loopback), known once it listens */
  selfUrl(): string;
  activity: ActivityApi;
  version: string;
}

function caller(base: string, authorization: string): ApiCaller {
  return async (method, path, body) => {
    const headers: Record<string, string> = { authorization, [channelHeader]: 'mcp', accept: 'application/json, text/plain' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, text };
  };
}

export function mcpRoutes(options: McpRouteOptions): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST', path: '/mcp', authenticated: true, activity: false, successes: [202], errors: [400, 406, 415],
      summary: 'The MCP endpoint (Model Context Protocol, streamable HTTP): task-level tools for an assistant, acting with this bearer token',
      description: 'Stateless: every POST carries one JSON-RPC message and is answered with JSON (202 without a body for a notification). '
        + 'Read tools need the scopes of the calls they make; a tool that changes something also needs `confirm: true` in its arguments. '
        + 'Variable values are never shown. Every tool call is in the activity log as `mcp.<tool>` with channel `mcp`. Clients send '
        + '`Accept: application/json, text/event-stream`. `dw mcp` offers the same tools over stdio.',
      body: Type.Unknown({ description: 'a JSON-RPC 2.0 request or notification' }),
      response: Type.Unknown({ description: 'the JSON-RPC 2.0 answer' }),
      handler: async ({ body, headers, principal }) => {
        const authorization = String(headers.authorization ?? '');
        if (!authorization.startsWith('Bearer ')) throw problem(403, 'MCP takes a personal bearer token, not a portal session', { code: 'mcp-bearer' });
        const { WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
        const report = (call: ToolCall) => options.activity.record({
          actor: { ...principal.actor, channel: 'mcp' }, action: `mcp.${call.tool.name}`, resource: call.tool.resource?.(call.args) ?? null,
          result: call.result, detail: { confirm: call.args.confirm === true, ...(call.message ? { message: call.message.slice(0, 500) } : {}) },
        });
        const server = await buildMcpServer(caller(options.selfUrl(), authorization), report, options.version);
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          const forwarded: Record<string, string> = { 'content-type': 'application/json', accept: String(headers.accept ?? '') };
          const version = headers['mcp-protocol-version'];
          if (typeof version === 'string') forwarded['mcp-protocol-version'] = version;
          const answer = await transport.handleRequest(new Request('http://localhost/api/v1/mcp', { method: 'POST', headers: forwarded, body: JSON.stringify(body) }), { parsedBody: body });
          const text = await answer.text();
          if (answer.status >= 400) {
            let message = text;
            try { message = JSON.parse(text).error?.message ?? text; } catch { /* plain text */ }
            throw problem(answer.status, `MCP: ${message}`, { code: 'mcp-request' });
          }
          return reply(answer.status, text ? JSON.parse(text) : undefined);
        } finally {
          await server.close();
        }
      },
    }),
  ];
}
