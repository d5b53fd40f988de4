// What a stack looks like in answers: its live status from the engine, last deploy, webhooks — built for many stacks with one call each.
import { ActorSchema, JobStatusSchema, looksSecret, Nullable, Type, type Job } from '../../sdk/index.ts';
import type { ServiceStatus } from '../docker/types.ts';
import type { StackSummary } from './store.ts';

/** `down`: it should run (deployed, not stopped) but no service runs, crashed or removed behind Dockwright's back; `stopped`: stopped on purpose */
export type StackStatus = 'running' | 'partial' | 'stopped' | 'down' | 'failed' | 'deploying' | 'never-deployed' | 'unknown';

/**
 * variables as the caller may see them: values of secret-looking names are hidden from callers who cannot write the stack;
 * those in `hidden` (values a template generated) from every caller.
 */
export function visibleVariables(env: Record<string, string>, mayWrite: boolean, hidden: ReadonlySet<string> = noneHidden): { values: Record<string, string>; redacted: string[] } {
  if (mayWrite && !hidden.size) return { values: env, redacted: [] };
  const isHidden = (k: string) => hidden.has(k) || (!mayWrite && looksSecret(k));
  const redacted = Object.keys(env).filter(isHidden);
  return { values: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, isHidden(k) ? '***' : v])), redacted };
}
const noneHidden: ReadonlySet<string> = new Set();

/** a write of the variables keeps the stored value of each hidden one the body leaves out or sends as `***` */
export function keepHidden(stored: Record<string, string>, given: Record<string, string>, hidden: ReadonlySet<string>): Record<string, string> {
  const out = { ...given };
  for (const k of hidden) if (k in stored && (!(k in given) || given[k] === '***')) out[k] = stored[k];
  return out;
}

/** template settings as the caller may see them: like variables, secret-looking names are hidden from readers */
export function visibleSettings(settings: Record<string, unknown>, mayWrite: boolean): Record<string, unknown> {
  if (mayWrite) return settings;
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, looksSecret(k) ? '***' : v]));
}

export function deriveStatus(row: StackSummary, services: readonly ServiceStatus[] | null, lastDeploy: Job | null): StackStatus {
  if (lastDeploy && !lastDeploy.done) return 'deploying';
  if (services === null) return 'unknown';
  if (lastDeploy?.status === 'failed') return 'failed';
  const idle = row.desired === 'running' ? 'down' : 'stopped';
  if (!services.some((s) => s.containers.length)) return row.desired === 'none' ? 'never-deployed' : idle;
  const up = new Set(services.filter((s) => s.containers.some((c) => c.state === 'running' && c.health !== 'unhealthy')).map((s) => s.service));
  if (!up.size) return idle;
  return row.services.every((name) => up.has(name)) ? 'running' : 'partial';
}

export interface LiveState {
  services: Map<string, readonly ServiceStatus[]> | null;
  engineError: string | null;
  jobs: Map<string, Job>;
  deployWebhooks: Set<string>;
  pushWebhooks: Set<string>;
}

const ContainerSchema = Type.Object({
  id: Type.String(), name: Type.String(), state: Type.String(), status: Type.String({ description: "the engine's words: `Up 5 minutes (healthy)`" }),
  health: Nullable(Type.String()), image: Type.String(), createdAt: Type.String(),
  imageId: Type.Optional(Type.String({ description: "the image's id (sha256:…)" })),
  ports: Type.Optional(Type.Array(Type.Object({ hostIp: Nullable(Type.String()), hostPort: Type.Integer(), containerPort: Type.Integer(), protocol: Type.String() }), { description: 'ports published on the host' })),
});
const StatusSchema = Type.Union(['running', 'partial', 'stopped', 'down', 'failed', 'deploying', 'never-deployed', 'unknown'].map((s) => Type.Literal(s as StackStatus)));

/** a stack in lists: the answer of stackView */
export const StackViewSchema = Type.Object({
  name: Type.String(),
  revision: Type.Integer(),
  status: StatusSchema,
  engineError: Type.Optional(Type.String({ description: 'why the live status is unknown' })),
  services: Type.Array(Type.Object({ name: Type.String(), declared: Type.Boolean(), containers: Type.Array(ContainerSchema) })),
  template: Nullable(Type.String()),
  autoupdate: Type.Boolean(),
  webhooks: Type.Object({ deploy: Type.Object({ enabled: Type.Boolean() }), push: Type.Object({ enabled: Type.Boolean() }) }),
  lastDeploy: Nullable(Type.Object({
    jobId: Type.String(), status: JobStatusSchema, error: Nullable(Type.String()), actor: ActorSchema, createdAt: Type.String(), finishedAt: Nullable(Type.String()),
  })),
  lastJob: Nullable(Type.Object({ jobId: Type.String(), type: Type.String(), status: JobStatusSchema, finishedAt: Nullable(Type.String()) })),
  deployedRevision: Nullable(Type.Integer()),
  deployedAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const WebhookCallSchema = Type.Object({ at: Type.String(), address: Type.String(), jobId: Nullable(Type.String()), outcome: Type.String() });

/** one stack in full: the list view, the recent deploy-webhook calls and what other plugins add (the git source) */
export const StackDetailSchema = Type.Object({
  ...StackViewSchema.properties,
  template: Type.Union([Nullable(Type.String({ description: 'the stacks plugin\'s own template (GET /stack-templates) it was made from' })), Type.Object({
    source: Type.String(), id: Type.String(), version: Type.String(), variables: Type.Array(Type.String(), { description: 'the names of its inputs (values: GET /stacks/{name}/env)' }),
  }, { description: 'the templates plugin: the catalogue template it was made from (GET /stacks/{name}/template/update)' })]),
  webhooks: Type.Object({
    deploy: Type.Object({ enabled: Type.Boolean(), recent: Type.Array(WebhookCallSchema) }),
    push: Type.Object({ enabled: Type.Boolean() }),
  }),
  source: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'the git or upload source (GET /stacks/{name}/source), null without one' })),
  release: Type.Optional(Nullable(Type.Object({
    number: Type.Integer(),
    services: Type.Array(Type.Object({
      service: Type.String(), image: Type.String(), digest: Nullable(Type.String()),
      origin: Type.Union([Type.Literal('compose'), Type.Literal('update')], { description: 'its compose file, or an update on top of it' }),
    })),
  }, { description: 'the releases plugin: the current release (GET /stacks/{name}/releases), per service which image it runs and why; null before the first' }))),
});

const noContainers = Object.freeze([]) as unknown as never[];
const noServices: readonly ServiceStatus[] = Object.freeze([]);

/** the declared services, then those running without being declared; a stack with nothing running (most, in a list) builds no map */
function servicesOf(declared: readonly string[], running: readonly ServiceStatus[] | null) {
  if (!running?.length) return declared.map((name) => ({ name, declared: true, containers: noContainers }));
  const byName = new Map(running.map((s) => [s.service, s.containers]));
  return [...new Set([...declared, ...byName.keys()])].map((name) => ({ name, declared: declared.includes(name), containers: byName.get(name) ?? noContainers }));
}

// the four ways a list item's webhooks can be, shared by every item instead of built for each
const webhookFlags = [false, true].map((deploy) => [false, true].map((push) => Object.freeze({ deploy: Object.freeze({ enabled: deploy }), push: Object.freeze({ enabled: push }) })));

const lastDeployOf = (row: StackSummary, live: LiveState) => (row.lastDeployJob ? live.jobs.get(row.lastDeployJob) ?? null : null);
const servicesIn = (row: StackSummary, live: LiveState) => (live.services ? live.services.get(row.name) ?? noServices : null);

/** the stack's status alone, as stackView shows it */
export const statusOf = (row: StackSummary, live: LiveState): StackStatus => deriveStatus(row, servicesIn(row, live), lastDeployOf(row, live));

export function stackView(row: StackSummary, live: LiveState) {
  const lastDeploy = lastDeployOf(row, live);
  const lastJob = row.lastJob ? live.jobs.get(row.lastJob) ?? null : null;
  const services = servicesIn(row, live);
  return {
    name: row.name,
    revision: row.revision,
    status: deriveStatus(row, services, lastDeploy),
    engineError: live.engineError ?? undefined, // left out of the JSON when the engine answers; a literal without spread stays cheap
    services: servicesOf(row.services, services),
    template: row.template,
    autoupdate: row.autoupdate,
    webhooks: webhookFlags[Number(live.deployWebhooks.has(row.name))][Number(live.pushWebhooks.has(row.name))],
    lastDeploy: lastDeploy && {
      jobId: lastDeploy.id, status: lastDeploy.status, error: lastDeploy.error, actor: lastDeploy.actor,
      createdAt: lastDeploy.createdAt, finishedAt: lastDeploy.finishedAt,
    },
    lastJob: lastJob && { jobId: lastJob.id, type: lastJob.type, status: lastJob.status, finishedAt: lastJob.finishedAt },
    deployedRevision: row.deployedRevision,
    deployedAt: row.deployedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
