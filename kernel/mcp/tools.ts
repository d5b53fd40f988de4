// The MCP tools: task-level actions an assistant may take, each one or a few calls of the REST API with the caller's own token (its scopes and access lists apply).
import { z } from 'zod';

/** one call of this service's REST API as the MCP caller: status and parsed body */
export type ApiCaller = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: any; text: string }>;

export interface ToolResult { content: { type: 'text'; text: string }[]; isError?: boolean; [key: string]: unknown }

export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  /** changes something: needs `confirm: true` and the token's scope */
  mutating: boolean;
  destructive?: boolean;
  /** the resource an activity entry names */
  resource?(args: Record<string, unknown>): string | undefined;
  run(api: ApiCaller, args: any): Promise<unknown>;
}

/** a refusal by the API, told to the model with what to do */
export class ToolRefused extends Error {}

const seg = encodeURIComponent;
const name = z.string().min(1).max(200).describe('the stack name, as list_stacks shows it');
const confirm = z.boolean().optional().describe('must be true: set it only after the user agreed to this change');
const outputTail = (text: string, lines = 60) => text.split('\n').slice(-lines).join('\n');

async function ok(api: ApiCaller, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const res = await api(method, path, body);
  if (res.status >= 200 && res.status < 300) return res.body;
  const detail = typeof res.body === 'object' && res.body ? (res.body.detail ?? res.body.title) : res.text.slice(0, 300);
  const hint = res.status === 403 ? ' (the token lacks this scope or access: ask the user for a token that has it)' : res.status === 404 ? ' (no such resource, or not visible to this token: check the name with a list tool)' : '';
  throw new ToolRefused(`${method} ${path} was refused with ${res.status}: ${detail}${hint}`);
}

/** a started job, followed for up to `wait` seconds (the model can poll job_status after) */
async function followJob(api: ApiCaller, job: { id: string }, wait: number | undefined): Promise<unknown> {
  const done = wait ? await ok(api, 'GET', `/api/v1/jobs/${seg(job.id)}/wait?timeout=${Math.min(120, wait)}`) : job;
  return { job: { id: done.id, type: done.type, status: done.status, done: done.done, error: done.error, outputTail: outputTail(done.output ?? '', 30) } };
}

const stackSummary = (s: any) => ({
  name: s.name, status: s.status, revision: s.revision,
  services: (s.services ?? []).map((v: any) => ({ name: v.name, containers: (v.containers ?? []).map((c: any) => ({ state: c.state, health: c.health ?? null })) })),
  lastDeploy: s.lastDeploy ?? null, updatedAt: s.updatedAt,
});

export const tools: McpTool[] = [
  {
    name: 'list_stacks', title: 'List stacks', mutating: false, input: {},
    description: 'Lists the compose stacks this token may see, with each one\'s status (running, partial, stopped, failed, deploying, never-deployed) and revision. Start here to find a stack\'s exact name.',
    run: async (api) => (await ok(api, 'GET', '/api/v1/stacks?limit=1000')).map((s: any) => ({ name: s.name, status: s.status, revision: s.revision, services: s.services?.length ?? 0 })),
  },
  {
    name: 'stack_status', title: 'Stack status', mutating: false, input: { name }, resource: (a) => `stack:${a.name}`,
    description: 'Shows one stack: its status, revision, services with their containers\' state and health, and its last deploy. Use it to check whether a stack is healthy or why a deploy failed.',
    run: async (api, a) => stackSummary(await ok(api, 'GET', `/api/v1/stacks/${seg(a.name)}`)),
  },
  {
    name: 'stack_logs', title: 'Stack logs', mutating: false, resource: (a) => `stack:${a.name}`,
    input: { name, service: z.string().max(200).optional().describe('only this service (default: every service)'), tail: z.number().int().min(1).max(1000).optional().describe('lines per container (default 100)') },
    description: 'Returns the last lines of the logs of a stack\'s containers, per service. Use it to diagnose a crashing or misbehaving service.',
    async run(api, a) {
      const containers = (await ok(api, 'GET', `/api/v1/containers?stack=${seg(a.name)}`)).filter((c: any) => !a.service || c.service === a.service);
      const logs: Record<string, string> = {};
      for (const c of containers) {
        const res = await api('GET', `/api/v1/containers/${seg(c.id)}/logs?tail=${a.tail ?? 100}`);
        logs[c.service ?? c.name] = res.status === 200 ? res.text.slice(-20_000) : `(refused with ${res.status})`;
      }
      return { containers: containers.length, logs };
    },
  },
  {
    name: 'stack_compose', title: 'Stack compose file', mutating: false, input: { name }, resource: (a) => `stack:${a.name}`,
    description: 'Returns the compose file a stack deploys, and where it comes from (the editor, an upload or a git commit).',
    run: async (api, a) => { const c = await ok(api, 'GET', `/api/v1/stacks/${seg(a.name)}/compose`); return { revision: c.revision, origin: c.origin, content: c.content }; },
  },
  {
    name: 'stack_variables', title: 'Stack variable names', mutating: false, input: { name }, resource: (a) => `stack:${a.name}`,
    description: 'Lists the names of a stack\'s variables. Values are never shown through MCP (they may be secrets): ask the user if a value matters.',
    run: async (api, a) => { const e = await ok(api, 'GET', `/api/v1/stacks/${seg(a.name)}/env`); return { revision: e.revision, names: Object.keys(e.values).sort() }; },
  },
  {
    name: 'stack_releases', title: 'Stack releases', mutating: false, input: { name }, resource: (a) => `stack:${a.name}`,
    description: 'Lists a stack\'s releases (numbered deploys, newest first) with their images. Use it before rollback_stack to pick a release.',
    run: async (api, a) => (await ok(api, 'GET', `/api/v1/stacks/${seg(a.name)}/releases?limit=20`)).map((r: any) => ({ number: r.number, kind: r.kind, revision: r.revision, createdAt: r.createdAt, services: r.services?.map((s: any) => `${s.service}=${s.image}`) })),
  },
  {
    name: 'job_status', title: 'Job status', mutating: false, input: { id: z.string().uuid().describe('the job id a deploy or another action returned') },
    description: 'Shows a job (a deploy, stop, backup…): its status (queued, running, succeeded, failed, canceled), its error and the end of its output.',
    run: async (api, a) => { const j = await ok(api, 'GET', `/api/v1/jobs/${seg(a.id)}`); return { id: j.id, type: j.type, resource: j.resource, status: j.status, done: j.done, error: j.error, outputTail: outputTail(j.output) }; },
  },
  {
    name: 'list_jobs', title: 'Recent jobs', mutating: false, input: {},
    description: 'Lists the most recent jobs (deploys, backups, syncs) with their status, newest first.',
    run: async (api) => (await ok(api, 'GET', '/api/v1/jobs?limit=20')).map((j: any) => ({ id: j.id, type: j.type, resource: j.resource, status: j.status, createdAt: j.createdAt })),
  },
  {
    name: 'list_attention', title: 'What needs attention', mutating: false, input: {},
    description: 'Lists what needs attention now across the installation (failed deploys, unhealthy containers, expiring certificates, failed backups…), with a summary of counts. Start here when asked "is everything fine?".',
    run: async (api) => { const o = await ok(api, 'GET', '/api/v1/overview'); return { attention: o.attention, counts: o.counts ?? o.summary }; },
  },
  {
    name: 'list_alerts', title: 'Open alerts', mutating: false, input: {},
    description: 'Lists open and acknowledged alerts with their kind, severity, resource and message.',
    run: async (api) => (await ok(api, 'GET', '/api/v1/alerts?limit=100')).filter((a: any) => a.status !== 'resolved'),
  },
  {
    name: 'list_sites', title: 'List static sites', mutating: false, input: {},
    description: 'Lists the static sites with their hostnames, published version and last error.',
    run: async (api) => (await ok(api, 'GET', '/api/v1/sites?limit=1000')).map((s: any) => ({ name: s.name, hostnames: s.hostnames, version: s.version, lastError: s.lastError })),
  },
  {
    name: 'list_backups', title: 'List backups', mutating: false, input: {},
    description: 'Lists the backup definitions with their schedule and last run.',
    run: async (api) => ok(api, 'GET', '/api/v1/backups?limit=1000'),
  },
  {
    name: 'deploy_stack', title: 'Deploy a stack', mutating: true, resource: (a) => `stack:${a.name}`,
    input: { name, confirm, wait: z.number().int().min(0).max(120).optional().describe('seconds to wait for the deploy to finish (default 0: return the job at once)') },
    description: 'Deploys a stack\'s current compose file and variables (pulls images and recreates changed containers). Changes the running system: only with the user\'s agreement, and confirm: true. Returns the job; follow it with job_status.',
    run: async (api, a) => followJob(api, await ok(api, 'POST', `/api/v1/stacks/${seg(a.name)}/deploy`), a.wait),
  },
  {
    name: 'rollback_stack', title: 'Roll back a stack', mutating: true, destructive: true, resource: (a) => `stack:${a.name}`,
    input: { name, confirm, release: z.number().int().min(1).optional().describe('the release to return to (default: the one before the current)'), wait: z.number().int().min(0).max(120).optional().describe('seconds to wait for it to finish') },
    description: 'Rolls a stack back to an earlier release (its images and compose file), replacing what runs now. Only with the user\'s agreement, and confirm: true.',
    run: async (api, a) => followJob(api, await ok(api, 'POST', `/api/v1/stacks/${seg(a.name)}/rollback`, a.release ? { release: a.release } : {}), a.wait),
  },
  {
    name: 'stop_stack', title: 'Stop a stack', mutating: true, destructive: true, resource: (a) => `stack:${a.name}`,
    input: { name, confirm },
    description: 'Stops every container of a stack: its service goes down until the next deploy. Only with the user\'s agreement, and confirm: true.',
    run: async (api, a) => followJob(api, await ok(api, 'POST', `/api/v1/stacks/${seg(a.name)}/stop`), 0),
  },
  {
    name: 'run_backup', title: 'Run a backup', mutating: true, resource: (a) => `backup:${a.name}`,
    input: { name: z.string().min(1).max(200).describe('the backup name, as list_backups shows it'), confirm },
    description: 'Runs a backup now (a new snapshot). With the user\'s agreement, and confirm: true.',
    run: async (api, a) => followJob(api, await ok(api, 'POST', `/api/v1/backups/${seg(a.name)}/run`), 0),
  },
  {
    name: 'acknowledge_alert', title: 'Acknowledge an alert', mutating: true, resource: (a) => `alert:${a.id}`,
    input: { id: z.string().min(1).max(100).describe('the alert id from list_alerts'), confirm },
    description: 'Marks an alert as acknowledged (it stays open until resolved, and stops repeating). With the user\'s agreement, and confirm: true.',
    run: async (api, a) => ok(api, 'POST', `/api/v1/alerts/${seg(a.id)}/acknowledge`),
  },
];
