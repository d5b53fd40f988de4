// The command line: serve, migrate, user add|passwd, token create|list|revoke, plugins, and the verbs plugins add (edge stop).
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { assemble, boot } from './app.ts';
import { favourMemoryWhenIdle } from './idle-memory.ts';
import { loadConfig } from './config.ts';
import { installationExists, installationPlace, noInstallationMessage } from './installation.ts';
import { newPassword } from './auth/passwords.ts';
import { addPlugin, setEnabled } from './plugin-admin.ts';
import { roles, type Role } from '../sdk/index.ts';

/** the install root (config/, data/, package.json): above kernel/ in the sources, above dist/kernel/ in the build */
function installRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dir === dirname(dir)) throw new Error(`no package.json above ${from}`);
  }
}
const root = installRoot(import.meta.dirname);
const usage = `usage: dockwright <command>
  serve                                   start the service (default)
  migrate                                 apply pending database migrations and exit
  plugins                                 list the enabled plugins in boot order, and every scope
  plugins add <package|folder|tarball>    npm install a plugin package into this install (added to config disabled)
  plugins enable|disable <name>           switch a plugin on or off in config/local.json; a restart applies it
  user add <name> [--role admin|operator|viewer] [--teams a,b]
  user passwd <name> [--stdin]            set a portal password: a new random one shown once, or the first line of stdin
  token create --user <name> --name <label> --scopes <a,b|*> [--expires <days>d]
  token list [--user <name>]
  token revoke <id|prefix>
Every command but serve acts on the installation the service's config and environment name (DATA_DIR, DATABASE_URL, ...),
says which on stderr, and refuses to create one: add --init to create a new installation on purpose.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

async function serve(): Promise<void> {
  const app = await boot({ root });
  favourMemoryWhenIdle(app.server);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal, graceMs: app.config.shutdown.graceMs }, 'shutting down: requests in flight finish, new ones are answered 503; the edge keeps serving');
    app.close().then(() => process.exit(0), (err) => { app.log.error({ err }, 'shutdown failed'); process.exit(1); });
  };
  // a stray rejection is a bug to log, not a reason to drop every request and job in flight
  process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** set by --init: the command may create the installation its config names */
let mayInit = false;

async function withKernel(fn: (app: Awaited<ReturnType<typeof assemble>>) => Promise<void>): Promise<void> {
  const config = loadConfig(root);
  if (!mayInit && !(await installationExists(config))) fail(noInstallationMessage(config));
  const app = await assemble({ root, log: quietLog, attach: true });
  process.stderr.write(`installation ${app.services.installationId} at ${installationPlace(config)}\n`);
  try {
    await fn(app);
  } finally {
    await app.close();
  }
}

const quietLog = {
  info: () => undefined, debug: () => undefined,
  warn: (o: unknown, m?: string) => process.stderr.write(`${m ?? ''} ${JSON.stringify(o)}\n`),
  error: (o: unknown, m?: string) => process.stderr.write(`${m ?? ''} ${JSON.stringify(o)}\n`),
  child() { return quietLog; },
};

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { role: { type: 'string' }, teams: { type: 'string' }, user: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' }, stdin: { type: 'boolean' }, init: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command = 'serve', sub, arg] = positionals;
  if (values.help) return void process.stdout.write(usage + '\n');
  mayInit = values.init === true;
  switch (`${command}${sub && command !== 'serve' ? ' ' + sub : ''}`) {
    case 'serve': return serve();
    case 'migrate': return withKernel(async () => { process.stdout.write('migrations are up to date\n'); });
    case 'plugins': return withKernel(async (app) => {
      for (const p of app.plugins) process.stdout.write(`${p.name}@${p.version}\n`);
      process.stdout.write('\nscopes:\n');
      for (const s of app.scopes.list()) process.stdout.write(`  ${s.name.padEnd(22)} ${s.role.padEnd(9)} ${s.description}\n`);
    });
    case 'plugins add': return print(addPlugin(root, process.env, arg ?? ''));
    case 'plugins enable':
    case 'plugins disable': {
      if (!arg) fail(`usage: plugins ${sub} <name>`);
      return print(setEnabled(root, process.env, arg, sub === 'enable'));
    }
    case 'user add': {
      const role = (values.role ?? 'operator') as Role;
      if (!arg) fail('usage: user add <name> [--role admin|operator|viewer]');
      if (!roles.includes(role)) fail(`role must be one of ${roles.join(', ')}`);
      return withKernel(async (app) => {
        const teams = (values.teams ?? '').split(',').map((t) => t.trim()).filter(Boolean);
        await app.tokens.addUser(arg, role, teams);
        process.stdout.write(`user ${arg} (${role}${teams.length ? `, teams ${teams.join(', ')}` : ''}) added\n`);
      });
    }
    case 'user passwd': {
      if (!arg) fail('usage: user passwd <name> [--stdin]');
      const password = values.stdin ? (await readStdin()).split('\n')[0].replace(/\r$/, '') : newPassword();
      return withKernel(async (app) => {
        await app.sessions.setPassword(arg, password).catch((err: Error) => fail(err.message));
        process.stdout.write(values.stdin ? `password of ${arg} set; its portal sessions were ended\n` : `password of ${arg} set; it is shown this once:\n${password}\n`);
      });
    }
    case 'token create': {
      if (!values.user || !values.name || !values.scopes) fail('usage: token create --user <name> --name <label> --scopes <a,b|*> [--expires <days>d]');
      const days = values.expires ? /^(\d{1,5})d$/.exec(values.expires)?.[1] : undefined;
      if (values.expires && !days) fail('--expires takes a number of days, e.g. 30d');
      return withKernel(async (app) => {
        const { id, token } = await app.tokens.create({
          user: values.user!, name: values.name!, scopes: values.scopes!.split(',').map((s) => s.trim()).filter(Boolean),
          expiresAt: days ? new Date(Date.now() + Number(days) * 86_400_000) : null,
        });
        process.stdout.write(`token ${id} created; it is shown this once:\n${token}\n`);
      });
    }
    case 'token list': return withKernel(async (app) => {
      for (const t of await app.tokens.list(values.user)) {
        const state = t.revokedAt ? 'revoked' : t.expiresAt && new Date(t.expiresAt) < new Date() ? 'expired' : 'active';
        process.stdout.write(`${t.id}  ${t.prefix}…  ${t.user}/${t.name}  ${state}  scopes=${t.scopes.join(',')}  expires=${t.expiresAt ?? 'never'}  lastUsed=${t.lastUsedAt ?? 'never'}\n`);
      }
    });
    case 'token revoke': {
      if (!arg) fail('usage: token revoke <id|prefix>');
      return withKernel(async (app) => {
        if (!(await app.tokens.revoke(arg))) fail(`no active token ${arg}`);
        process.stdout.write(`token ${arg} revoked\n`);
      });
    }
    default: {
      // a plugin's verb (`edge stop`): the plugins must be set up to know them
      if (!sub || command === 'serve') fail(usage);
      return withKernel(async (app) => {
        const found = app.services.commands.find((c) => c.command.name === `${command} ${sub}`);
        if (!found) fail(`${usage}\n${app.services.commands.map((c) => `  ${c.command.usage}`).join('\n')}`);
        process.stdout.write(await found.command.run(positionals.slice(2)));
      });
    }
  }
}

async function print(text: Promise<string>): Promise<void> {
  process.stdout.write(await text);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`dockwright: ${(err as Error).message}\n`);
  process.exit(1);
});
