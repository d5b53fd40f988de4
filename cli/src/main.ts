// dw's entry: finds the verb in argv, parses its options, runs it and exits with SPEC's codes (0 ok, 1 failed job, 2 usage or refused, 3 timed out).
import { parseArgs } from 'node:util';
import { version } from './client.ts';
import { CliError, exitCodes, usageError } from './errors.ts';
import { Output } from './output.ts';
import { clientFrom } from './settings.ts';
import { timeoutOf, type Context, type Options, type Verb } from './verbs.ts';
import { stackVerbs } from './commands/stacks.ts';
import { resourceVerbs } from './commands/resources.ts';
import { toolVerbs } from './commands/tools.ts';
import { declarativeVerbs } from './commands/declarative.ts';

const common: Options = {
  json: { type: 'boolean' },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export const verbs: Verb[] = [...stackVerbs, ...resourceVerbs, ...declarativeVerbs, ...toolVerbs];

/** the verb whose words start argv, the longest first (`stack env set` before `stack env`) */
function findVerb(argv: string[]): { verb: Verb; rest: string[] } | undefined {
  let best: Verb | undefined;
  for (const verb of verbs) {
    if (verb.words.every((w, i) => argv[i] === w) && (!best || verb.words.length > best.words.length)) best = verb;
  }
  return best && { verb: best, rest: argv.slice(best.words.length) };
}

const optionUsage = (options: Options = {}) => Object.entries(options).map(([name, o]) => `[--${name}${o.type === 'string' ? ' <value>' : ''}]`).join(' ');

export function usage(): string {
  const lines = verbs.filter((v) => !v.words[0]!.startsWith('__')).map((v) => `  dw ${[...v.words, v.usage].filter(Boolean).join(' ')}\n      ${v.summary}${v.options ? `\n      ${optionUsage(v.options)}` : ''}`);
  return `dw ${version}: the Dockwright command line

Server and token: DOCKWRIGHT_URL and DOCKWRIGHT_TOKEN, else what \`dw login\` saved.
Every verb takes --json (the answer as JSON on stdout) and --url.
Exit codes: 0 success, 1 the action failed (a failed job), 2 usage or a refused request, 3 timed out.

${lines.join('\n')}
`;
}

export async function run(argv: string[], out?: Output): Promise<number> {
  const wantsJson = argv.includes('--json');
  const output = out ?? new Output(wantsJson);
  try {
    if (!argv.length || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') { process.stdout.write(usage()); return argv.length ? exitCodes.ok : exitCodes.refused; }
    if (argv[0] === 'version' || argv[0] === '--version') { output.result({ version }, () => version); return exitCodes.ok; }
    const found = findVerb(argv);
    if (!found) throw usageError(`unknown verb: dw ${argv.filter((a) => !a.startsWith('-')).slice(0, 3).join(' ')}`);
    const { verb, rest } = found;
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...common, ...verb.options }, allowPositionals: true, strict: true });
    } catch (err) {
      throw usageError((err as Error).message.split('\n')[0]!, `usage: dw ${verb.words.join(' ')} ${verb.usage} ${optionUsage(verb.options)}`.trim());
    }
    if (parsed.values.help) { process.stdout.write(`dw ${[...verb.words, verb.usage].join(' ')}\n  ${verb.summary}\n  ${optionUsage({ ...verb.options, ...common })}\n`); return exitCodes.ok; }
    // a malformed --timeout is refused before anything is asked of the server
    if (parsed.values.timeout !== undefined) timeoutOf(parsed.values);
    const ctx: Context = {
      args: parsed.positionals, values: parsed.values, out: output, verbs,
      client: () => clientFrom({ url: parsed.values.url as string | undefined }),
    };
    await verb.run(ctx);
    return exitCodes.ok;
  } catch (err) {
    if (err instanceof CliError) { output.error(err); return err.code; }
    if ((err as { usage?: boolean }).usage) { output.error(usageError((err as Error).message)); return exitCodes.refused; }
    output.error(new CliError(`unexpected error: ${(err as Error).stack ?? String(err)}`, exitCodes.failed, 'please report this'));
    return exitCodes.failed;
  }
}
