// The MCP server of one request: the tools registered with their annotations, mutations held back without `confirm: true`, each call reported for the activity log.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolRefused, tools, type ApiCaller, type McpTool, type ToolResult } from './tools.ts';

export interface ToolCall { tool: McpTool; args: Record<string, unknown>; result: 'ok' | 'refused' | 'failed'; message?: string }

const text = (value: unknown, isError = false): ToolResult => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }], ...(isError ? { isError } : {}) });

/** what a model is told when it tries a change without the user's agreement */
const unconfirmed = (tool: McpTool) => `${tool.name} changes the running system${tool.destructive ? ' and cannot simply be undone' : ''}. Ask the user to agree to it, then call it again with confirm: true.`;

async function runTool(tool: McpTool, api: ApiCaller, args: Record<string, unknown>, report: (call: ToolCall) => Promise<void>): Promise<ToolResult> {
  if (tool.mutating && args.confirm !== true) {
    await report({ tool, args, result: 'refused', message: 'not confirmed' });
    return text(unconfirmed(tool), true);
  }
  try {
    const value = await tool.run(api, args);
    await report({ tool, args, result: 'ok' });
    return text(value);
  } catch (err) {
    const refused = err instanceof ToolRefused;
    await report({ tool, args, result: refused ? 'refused' : 'failed', message: (err as Error).message });
    return text(refused ? (err as Error).message : `the tool failed: ${(err as Error).message}`, true);
  }
}

export async function buildMcpServer(api: ApiCaller, report: (call: ToolCall) => Promise<void>, version: string): Promise<McpServer> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: 'dockwright', version }, {
    instructions: 'Dockwright runs compose stacks, static sites and backups on a server. Read with the list_* and stack_* tools; '
      + 'tools that change something need the user\'s agreement and confirm: true, and the token\'s scopes. Variable values are never shown.',
  });
  for (const tool of tools) {
    server.registerTool(tool.name, {
      title: tool.title, description: tool.description, inputSchema: tool.input,
      annotations: { title: tool.title, readOnlyHint: !tool.mutating, destructiveHint: tool.mutating ? Boolean(tool.destructive) : false, idempotentHint: !tool.mutating, openWorldHint: false },
    }, ((args: Record<string, unknown>) => runTool(tool, api, args ?? {}, report)) as never);
  }
  return server;
}
