// dw's own verbs: login (saves the server and token), completion scripts, and the stack names the completion asks for.
import { Client } from '../client.ts';
import { bashCompletion, zshCompletion } from '../completion.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';
import { readLogin, writeLogin } from '../settings.ts';
import type { Verb } from '../verbs.ts';

/** the token from DOCKWRIGHT_TOKEN or stdin (never argv: it would show in the process list and shell history) */
async function readToken(): Promise<string> {
  if (process.env.DOCKWRIGHT_TOKEN) return process.env.DOCKWRIGHT_TOKEN;
  if (process.stdin.isTTY) process.stderr.write('Token (dw_…, read from stdin): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

export const toolVerbs: Verb[] = [
  {
    words: ['login'], summary: 'Save the server URL and a token (from DOCKWRIGHT_TOKEN or stdin) after checking them with GET /me', usage: '<url>',
    async run(ctx) {
      const url = ctx.args[0] ?? (ctx.values.url as string | undefined) ?? readLogin().url;
      if (!url) throw usageError('missing the server URL', 'dw login https://dw.example.com  (the token comes from stdin or DOCKWRIGHT_TOKEN)');
      try { new URL(url); } catch { throw usageError(`not a URL: ${url}`); }
      const token = await readToken();
      if (!token) throw usageError('no token given', 'pipe it in: `dw login URL < token-file`, or set DOCKWRIGHT_TOKEN');
      const { body } = await new Client(url, token).json('get', '/api/v1/me');
      const file = writeLogin({ url, token });
      ctx.out.result({ url, user: body.user, file }, () => `signed in to ${url} as ${body.user?.name ?? 'unknown'}; saved in ${file}`);
    },
  },
  {
    words: ['completion'], summary: 'Print the shell completion script: eval "$(dw completion bash)" (or zsh)', usage: '<bash|zsh>',
    async run(ctx) {
      const shell = ctx.args[0];
      if (shell !== 'bash' && shell !== 'zsh') throw usageError('name the shell: bash or zsh');
      process.stdout.write(shell === 'bash' ? bashCompletion(ctx.verbs) : zshCompletion(ctx.verbs));
    },
  },
  {
    words: ['mcp'], summary: "Serve the server's MCP tools over stdio (for an assistant's MCP client configuration)", usage: '',
    async run(ctx) {
      const { serveStdio } = await import('../mcp.ts');
      await serveStdio(ctx.client());
    },
  },
  {
    words: ['__names'], summary: 'names for the shell completion', usage: '<stacks>',
    async run(ctx) {
      if (ctx.args[0] !== 'stacks') throw new CliError('only stacks', exitCodes.refused);
      const { body } = await ctx.client().json('get', '/api/v1/stacks', { query: { limit: 1000 } });
      process.stdout.write(body.map((s) => s.name).join('\n') + '\n');
    },
  },
];
