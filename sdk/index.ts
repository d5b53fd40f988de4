// The plugin SDK: the only module plugins import — how a plugin declares routes, jobs and scopes, and the context it is given.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import { diskFull, isProblem, locate, Problem, problem, type ProblemDef, type ProblemOptions } from './problem.ts';
import { keyedLock, type KeyedLock } from './keyed-lock.ts';
import { isWithin, linkOutOf, maxNameBytes, maxPathBytes, realExisting, tooLong } from './paths.ts';
import { OutboundRefused, type OutboundAddress, type OutboundApi } from './outbound.ts';

export { Type, type Static, type TSchema, diskFull, isProblem, locate, Problem, problem, type ProblemDef, type ProblemOptions, keyedLock, type KeyedLock, isWithin, linkOutOf, realExisting };
export { maxNameBytes, maxPathBytes, tooLong };
export { OutboundRefused, type OutboundAddress, type OutboundApi };
export { sdkVersion } from './version.ts';
export { parseCron } from './cron.ts';
export { looksSecret } from './secret-names.ts';
export { Nullable, ActorSchema, JobStatusSchema, JobSchema, JobAcceptedSchema } from './schemas.ts';

/** code-point order, for sorting names and timestamps: the same on every machine, and (unlike localeCompare) it loads no locale data, about 2.5 MB */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export type Role = 'viewer' | 'operator' | 'admin';
export const roles: readonly Role[] = ['viewer', 'operator', 'admin'];

/** Who did something, as stored on jobs and in the activity log. */
export interface Actor {
  kind: 'user' | 'webhook' | 'github' | 'system' | 'federation';
  /** user name for `user`; the CI token's subject for `federation`; otherwise a short label (the resource for webhooks, the schedule for system). */
  name?: string;
  tokenId?: string;
  address?: string;
  /** how a user acted: `portal` through a signed-in browser session, `mcp` through an MCP tool (absent: the API with a token) */
  channel?: 'portal' | 'mcp';
}

/** The caller of a request: a user acting through a personal token, or a single-action webhook caller. */
export interface Principal {
  actor: Actor;
  role: Role | null;
  /** effective scopes: token scopes ∩ what the owner's role allows. */
  scopes: readonly string[];
  can(scope: string): boolean;
  user?: { id: number; name: string; role: Role; teams: readonly string[] };
  token?: { id: string; name: string; expiresAt: string | null };
  /** set instead of token when the user signed in to the portal */
  session?: { id: string; expiresAt: string };
  /** the only stacks this caller may reach (a token exchanged by CI federation): any other answers 403; absent: no such limit */
  stacks?: readonly string[];
}

// ---------------------------------------------------------------- database

export interface QueryResult<T> { rows: T[]; rowCount: number }
export interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Runs fn in one transaction (BEGIN … COMMIT, ROLLBACK on throw). Nested calls reuse the outer transaction. */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}

/** a lock held across instances until released or until its database session is lost */
export interface HeldLock {
  /** resolves when the lock is lost (its connection failed): stop what it guarded */
  lost: Promise<void>;
  release(): Promise<void>;
}

// ---------------------------------------------------------------- routes

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest<P, Q, B, Rev extends number | undefined = number | undefined> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** the caller's address */
  ip: string;
  /** where this service is reached from outside: the configured publicUrl, else the request's Host (and X-Forwarded-Proto) */
  baseUrl: string;
  requestId: string;
  /** the base revision of a `revision` route: from `If-Match: "N"` or body `revision`; 0 for `If-None-Match: *`. */
  revision: Rev;
  /** paging of a `page` route: ?limit= (1…1000, default 100) and the opaque ?cursor=. */
  page: { limit: number; cursor: string | undefined };
  /** the raw request body of a `rawBody` route, or the upload of an `upload` route. */
  rawBody: Buffer | undefined;
  /** the request body, unread, of an `upload: 'stream'` route (undefined on others) */
  bodyStream: import('node:stream').Readable | undefined;
  /** aborted when the client goes away. */
  signal: AbortSignal;
  log: Logger;
  /**
   * a `websocket` route: completes the handshake (101) and hands over the connection; call it after the checks that
   * may refuse the request, which are then answered as usual. Throws on other routes.
   */
  upgrade(): WebSocketPeer;
}

/**
 * one WebSocket connection of a `websocket` route (RFC 6455 through `ws`, no extensions): text messages both ways.
 * The kernel closes it with 1008 once its caller lost access (token revoked, session signed out, user disabled).
 */
export interface WebSocketPeer {
  /** false while the connection is open but the text waits in memory: wait for 'drain' before sending more */
  send(text: string | Buffer): boolean;
  /** a close frame with the code and reason; 'close' follows at once */
  close(code?: number, reason?: string): void;
  readonly open: boolean;
  /** bytes sent but not yet taken by the peer */
  readonly bufferedAmount: number;
  /** stop reading the peer (backpressure: what it sends waits in its own buffers) until resume() */
  pause(): void;
  resume(): void;
  on(event: 'message', listener: (text: string) => void): this;
  on(event: 'close', listener: (code: number, reason: string) => void): this;
  on(event: 'drain', listener: () => void): this;
  once(event: 'close', listener: (code: number, reason: string) => void): this;
  once(event: 'drain', listener: () => void): this;
  removeListener(event: 'message', listener: (text: string) => void): this;
}

const replyMark = Symbol.for('dockwright.reply');
export interface Reply {
  [replyMark]: true;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  stream?: Readable;
  contentType?: string;
}
/** An answer with a status other than the route's default, or with extra headers. */
export function reply(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return { [replyMark]: true, status, body, headers };
}
/** A streamed answer (logs, file content). */
export function streamReply(stream: Readable, contentType: string, headers?: Record<string, string>): Reply {
  return { [replyMark]: true, status: 200, stream, contentType, headers };
}
export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && replyMark in value;
}

/** One page of a `page` route: the kernel answers the items as a JSON array and announces `next` in a Link header. */
export interface Page<T> { items: T[]; next?: string }

/** a page of rows read `limit + 1` at a time: the first `limit`, and `next`, the cursor after the last of them, when there were more */
export function pageOf<T>(rows: readonly T[], limit: number, cursorOf: (last: T) => string | number): { shown: T[]; next: string | undefined } {
  const shown = rows.slice(0, limit);
  return { shown, next: rows.length > limit ? String(cursorOf(shown[shown.length - 1])) : undefined };
}

export type RevisionMode = 'required' | 'optional';
/** the type of `req.revision`: a number on `revision: 'required'` routes (the kernel answers 428 before the handler otherwise) */
export type RevisionOf<V> = V extends 'required' ? number : number | undefined;

export interface RouteDef<P extends TSchema, Q extends TSchema, B extends TSchema, R extends TSchema, V extends RevisionMode | undefined = RevisionMode | undefined> {
  method: Method;
  /** path below the API base, with `:param` segments: `/stacks/:name/compose`. */
  path: string;
  summary: string;
  description?: string;
  /** every listed scope is required. A route needs exactly one of scopes, `authenticated`, `public` or `actionToken`. */
  scopes?: readonly string[];
  /** any valid personal token, whatever its scopes (GET /me, /overview). */
  authenticated?: boolean;
  /**
   * with `authenticated`: scopes the handler asks `principal.can` about, which widen what it does (GET /tokens lists
   * every token of the owner with `tokens:read`, the calling token only without). The OpenAPI document lists them as
   * `x-optional-scopes`; like `scopes`, each must be declared. With `public`: a bearer token, when one is sent, is
   * checked (401 when it is wrong) and its scopes widen the answer (GET /readyz shows details to metrics:read); without
   * one the caller is anonymous.
   */
  optionalScopes?: readonly string[];
  /** no token at all (the OpenAPI document, signed receivers that check their own signature). */
  public?: boolean;
  /** webhook routes: the bearer must be the action token of this kind for the resource named by the param. */
  actionToken?: { kind: string; param: string };
  params?: P;
  query?: Q;
  body?: B;
  response?: R;
  /** the media type of the success answer when it is not JSON (a streamed `text/plain`): `response` is then the schema of that text */
  mediaType?: string;
  /** the answers of further success statuses when they differ from `response` (202: the job, say) */
  responses?: Readonly<Record<number, TSchema>>;
  /** success status (default 200). */
  status?: number;
  /** further success statuses the handler answers with reply() (202 for ?async=1, say); documented with the response schema. */
  successes?: readonly number[];
  /** `required`: the write names its base revision (If-Match or body `revision`, 0 / `If-None-Match: *` creates); `optional`: it may. */
  revision?: V;
  /**
   * the body is an upload (raw bytes, upload size limit), exempt from the rate limit. `'stream'`: the body is not read
   * for the handler, which reads `bodyStream` itself (and enforces a size limit of its own): never whole in memory.
   */
  upload?: boolean | 'stream';
  /** keep the raw body bytes (signature checks); JSON is still parsed into `body`. */
  rawBody?: boolean;
  /**
   * a GET upgraded to a WebSocket: the handler calls `upgrade()` once its checks pass. Auth, scopes and the rate limit
   * are the same as any route's; a portal session gives its CSRF value as the query parameter `csrf` (a browser's
   * WebSocket sends no headers of its own) and its Origin must be this service's. Without an upgrade request: 426.
   */
  websocket?: boolean;
  /** a paged list: adds ?limit and ?cursor, and the handler returns a Page. */
  page?: boolean;
  /** the shape of this paged route's cursor (default: an opaque string up to 200 characters); a cursor of another shape is a 400. */
  cursor?: TSchema;
  /** further documented error statuses. */
  errors?: readonly number[];
  /** the activity-log action of a write (default `<plugin>.<method> <path>`); false to record nothing. */
  activity?: string | false;
  /** the activity-log resource, with `{param}` placeholders: `stack:{name}` (default: the path with its params filled in). */
  resource?: string;
  /** a `page` route returns a Page of its `response` items */
  handler(req: RouteRequest<Static<P>, Static<Q>, Static<B>, RevisionOf<V>>): Promise<Static<R> | Reply | Page<Static<R>> | void>;
}
export type AnyRoute = RouteDef<TSchema, TSchema, TSchema, TSchema>;

export function defineRoute<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, R extends TSchema = TSchema, V extends RevisionMode | undefined = undefined>(
  route: RouteDef<P, Q, B, R, V>,
  // NoInfer: where the route is passed on (ctx.routes.add), that target's `any` must not win over the route's own revision mode
): RouteDef<P, Q, B, R, NoInfer<V>> {
  return Object.freeze({ ...route });
}

// ---------------------------------------------------------------- jobs

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export interface Job {
  id: string;
  type: string;
  resource: string | null;
  status: JobStatus;
  done: boolean;
  output: string;
  result: unknown;
  error: string | null;
  actor: Actor;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface JobRun<I> {
  id: string;
  input: I;
  resource: string | null;
  actor: Actor;
  /** aborted on cancel and on shutdown. */
  signal: AbortSignal;
  /** appends a line to the job output (secrets given to redact() never appear). */
  log(line: string): void;
  /** hides this value wherever it would appear in the output, result or error. */
  redact(secret: string): void;
}

export interface JobDef<I extends TSchema> {
  /** `<plugin>.<verb>` */
  type: string;
  input: I;
  run(job: JobRun<Static<I>>): Promise<unknown>;
  /** the service's own background work (an alert's delivery): `GET /jobs` lists it only when asked (`?internal=1`) */
  internal?: boolean;
}
export function defineJob<I extends TSchema>(job: JobDef<I>): JobDef<I> {
  return Object.freeze({ ...job });
}

export interface EnqueueOptions {
  actor: Actor;
  resource?: string;
  /** jobs with one serial key run one at a time, in order. */
  serialKey?: string;
  /** return the queued (not yet running) job of this type and serial key instead of queuing another. */
  attachToQueued?: boolean;
}
export interface JobHandle<I> {
  type: string;
  enqueue(input: I, options: EnqueueOptions): Promise<Job & { attached: boolean }>;
}
export interface JobsApi {
  define<I extends TSchema>(job: JobDef<I>): JobHandle<Static<I>>;
  get(id: string): Promise<Job | null>;
  /** resolves as soon as the job is done, or with its current state after timeoutMs. */
  wait(id: string, timeoutMs: number): Promise<Job | null>;
  /** the newest job of a type for a resource. */
  latest(type: string, resource: string): Promise<Job | null>;
  /**
   * several jobs by id in one query (unknown ids are left out). `output: false`: their output is left empty (''), for lists
   * that show none; finished jobs then come from memory once read, frozen (shared by every caller: copy to change one).
   */
  getMany(ids: readonly string[], opts?: { output?: boolean }): Promise<Map<string, Job>>;
  /** the jobs of a resource that are queued or running, oldest first. */
  open(resource: string): Promise<Job[]>;
}

// ---------------------------------------------------------------- kernel services

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: object): Logger;
}

export interface Snapshot { [key: string]: unknown }
export interface RevisionInfo {
  revision: number;
  author: Actor;
  message: string | null;
  createdAt: string;
}
export interface RevisionsApi {
  /**
   * Compare-and-swap on the revision of (kind, key): `expected` 0 creates, otherwise it must equal the current
   * revision (412 with currentRevision when stale, 404 when absent, 409 when creating what exists). `apply` runs
   * in the same transaction, writes the plugin's own rows and returns the snapshot stored as the new revision.
   */
  write(opts: {
    kind: string; key: string; expected: number; actor: Actor; message?: string;
    apply(tx: Db, revision: number): Promise<Snapshot>;
  }): Promise<number>;
  /** removes (kind, key) and its history when `expected` is current; `apply` deletes the plugin's rows. */
  remove(opts: { kind: string; key: string; expected: number; apply(tx: Db): Promise<void> }): Promise<void>;
  current(kind: string, key: string, db?: Db): Promise<number | null>;
  list(kind: string, key: string, page: { limit: number; before?: number }): Promise<RevisionInfo[]>;
  get(kind: string, key: string, revision: number): Promise<(RevisionInfo & { snapshot: Snapshot }) | null>;
}

export interface ActivityEntry {
  actor: Actor;
  action: string;
  resource?: string | null;
  result: 'ok' | 'failed' | 'refused' | string;
  detail?: Record<string, unknown>;
}
export interface ActivityApi { record(entry: ActivityEntry, db?: Db): Promise<void> }

export interface ActionTokensApi {
  /** enables or rotates: returns the new token (shown once); the previous one stops working at once. */
  issue(kind: string, resource: string): Promise<string>;
  verify(kind: string, resource: string, token: string): Promise<boolean>;
  revoke(kind: string, resource: string): Promise<boolean>;
  enabled(kind: string, resources: readonly string[]): Promise<Set<string>>;
  /** takes the cooldown window atomically: ok, or the seconds left until the next call is accepted. */
  take(kind: string, resource: string, windowSeconds: number): Promise<{ ok: true } | { ok: false; retryAfter: number }>;
  /** enables or rotates a shared secret (for HMAC-signed receivers): kept encrypted, because verifying needs it. */
  issueSecret(kind: string, resource: string): Promise<string>;
  secret(kind: string, resource: string): Promise<string | null>;
}

export interface SecretsApi {
  seal(plain: string): string;
  open(sealed: string): string;
}

export interface EventsApi {
  emit(name: string, payload: Record<string, unknown>): void;
  on(name: string, listener: (payload: Record<string, unknown>) => void | Promise<void>): void;
}

export interface AttentionItem {
  severity: 'critical' | 'warning' | 'info';
  kind: string;
  resource?: string;
  message: string;
  since?: string;
}
export interface OverviewContributor {
  /** shown only to callers holding this scope. */
  scope: string;
  summary?(viewer: Principal): Promise<Record<string, unknown>>;
  attention?(viewer: Principal): Promise<AttentionItem[]>;
}

/**
 * Which resources of a kind a caller may see or act on, beyond their scopes (a stack's access list, say). The kernel
 * applies it to what it lists itself: jobs and the activity log.
 */
export interface VisibilityRule {
  /** the resources `<prefix><key>` this rule decides, e.g. `stack:` */
  prefix: string;
  /** the keys among these the caller may see (`read`) or act on (`act`) */
  visible(principal: Principal, keys: readonly string[], need: 'read' | 'act'): Promise<Set<string>>;
  /**
   * a user (`user:<name>`) or team (`team:<name>`) is being removed: what names it grants nothing from now on, also to a
   * later user or team of the same name. Runs inside the removal's transaction `tx` (SDK 1.7).
   */
  forget?(principal: string, tx: Db): Promise<void>;
}

export interface ScopeDef { description: string; /** the least role that may hold it */ role: Role }

/** one value of a metric family; `metricName` names a histogram's `_bucket`, `_sum` and `_count` lines */
export interface MetricSample { labels?: Record<string, string>; value: number; metricName?: string }
/** a Prometheus metric family measured when /metrics is scraped: names start with `dockwright_` */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  collect(): MetricSample[] | Promise<MetricSample[]>;
}
/** what a plugin reports beside /readyz (the engine, the edge): shown to whoever asks, never a reason to be unready */
export type HealthCheck = () => Promise<{ ok: boolean; state: string; detail?: string }>;

// ---------------------------------------------------------------- typed dependencies

declare const apiType: unique symbol;
/**
 * A typed reference to a plugin: its name, and (in types only) the API its setup returns. A plugin publishes one in its
 * `api.ts`; a plugin that names it in `requires` gets `ctx.deps.<name>` typed as that API.
 */
export interface PluginRef<Name extends string = string, Api = unknown> {
  readonly name: Name;
  readonly [apiType]?: Api;
}
/** `export const stacksPlugin: PluginRef<'stacks', StacksApi> = pluginRef('stacks');` (in the plugin's api.ts) */
export function pluginRef<Name extends string, Api>(name: Name): PluginRef<Name, Api> {
  return Object.freeze({ name });
}

/**
 * what `requires` lists: typed references, one form for every plugin (`pluginRef('stacks')`, published in the required
 * plugin's api.ts; a plugin without the SDK writes `{ name: 'stacks' }`). Not names, not definitions.
 */
export type Requirement = PluginRef & { readonly setup?: never };
type ApiOf<R> = R extends PluginRef<string, infer A> ? A : unknown;
type NameOf<R> = R extends { readonly name: infer N extends string } ? N : never;
/** `ctx.deps`: each required plugin's API under its name, typed by its reference */
export type DepsOf<Req extends readonly Requirement[]> = Readonly<Record<string, unknown>> & { readonly [R in Req[number] as NameOf<R>]: ApiOf<R> };

/** the names of what a plugin requires */
export function requiredNames(requires: readonly Requirement[] | undefined): string[] {
  return (requires ?? []).map((r) => r.name);
}

/** why a plugin's `requires` is not a list of references, or null when it is (the kernel refuses such a plugin as it loads it) */
export function requiresProblem(requires: unknown): string | null {
  if (requires === undefined) return null;
  if (!Array.isArray(requires)) return 'requires must be a list of plugin references';
  for (const r of requires as unknown[]) {
    if (typeof r === 'string') return `requires names "${r}": list its reference instead, pluginRef('${r}') from its api.ts, or { name: '${r}' }`;
    if (!r || typeof r !== 'object' || typeof (r as { name?: unknown }).name !== 'string') return 'requires lists something that is not a plugin reference ({ name })';
    if (typeof (r as { setup?: unknown }).setup === 'function') return `requires lists the definition of "${(r as { name: string }).name}": list its reference instead, pluginRef('${(r as { name: string }).name}')`;
  }
  return null;
}

// ---------------------------------------------------------------- extension points

declare const contributionType: unique symbol;
/**
 * A named place where other plugins plug something in (a stack source, a platform rule, a backup target). Its owner
 * declares it in its api.ts; a plugin that requires the owner contributes with ctx.extensions.add during setup.
 */
export interface ExtensionPoint<T> {
  readonly owner: string;
  readonly name: string;
  /** a resource provider's point: what each contribution provides (`stack runtime`, `backup target`), as GET /plugins lists it */
  readonly resource?: string;
  readonly [contributionType]?: T;
}
/** `extensionPoint<BackupTarget>('backups', 'targets', { resource: 'backup target' })`; list it in the owner's `extensionPoints` */
export function extensionPoint<T>(owner: string, name: string, opts: { resource?: string } = {}): ExtensionPoint<T> {
  return Object.freeze({ owner, name, ...opts });
}

export interface ExtensionsApi {
  /** plugs `value` into `point` (during setup only); the point's owner must be this plugin or one it requires */
  add<T>(point: ExtensionPoint<T>, value: T): void;
  /** what was plugged into `point`: complete once every plugin is set up, so read it when used or in onStart */
  of<T>(point: ExtensionPoint<T>): readonly T[];
}

/**
 * The kernel's services, which a plugin asks for by name in its definition's `services` (Backstage's `deps`): its context
 * holds those, and using another is an error that says what to declare. A plugin that names none gets them all (as SDK 1.3 did).
 */
export interface PluginServices {
  /** the database: queries and transactions (`tx`) */
  db: Db;
  /** a connection URL of Dockwright's own database, for tools such as pg_dump (it may hold a password: never log it) */
  databaseUrl: string;
  /** compare-and-swap revisions of a resource, with their history */
  revisions: RevisionsApi;
  /** the activity log: who did what to which resource */
  activity: ActivityApi;
  /** single-action tokens and shared secrets of webhooks */
  actionTokens: ActionTokensApi;
  /** sealing and opening values stored encrypted */
  secrets: SecretsApi;
  /** the event bus between plugins (`stack.deployed`, `container.exited`, …) */
  events: EventsApi;
  /** the outbound-address policy: every connection made for a user goes to an address it checked (see sdk/outbound.ts) */
  outbound: OutboundApi;
  /** one holder across all instances sharing the database (e.g. the one instance that runs the edge); null while another holds it */
  locks: { try(name: string): Promise<HeldLock | null> };
}
export type ServiceName = keyof PluginServices;
export const serviceNames: readonly ServiceName[] = ['db', 'databaseUrl', 'revisions', 'activity', 'actionTokens', 'secrets', 'events', 'outbound', 'locks'];

/** what a plugin is given: who it is and its settings, the services it declared (`S`), and registration (open while its setup runs) */
export type PluginContext<O = unknown, D = Readonly<Record<string, unknown>>, S extends ServiceName = ServiceName> = PluginRegistration<O, D> & Readonly<Pick<PluginServices, S>>;

/** a plugin's context as its helpers take it: the services they use (`ContextWith<'db' | 'events'>`), whatever the plugin's options and deps */
export type ContextWith<S extends ServiceName> = PluginContext<unknown, Readonly<Record<string, unknown>>, S>;

/** how an option of a plugin shows on the Settings page and in GET /settings (`plugins.<plugin>.options.<option>`) */
export interface SettingDef {
  /** what the page calls it: "Preview domain" */
  label: string;
  /** the heading it is listed under: "Sites", "Certificates" */
  group: string;
  /** its value is never answered nor logged: GET /settings shows whether it is set */
  secret?: boolean;
  /** the plugin reads it only as it starts: a change is listed in restartNeeded until the service restarts */
  restart?: boolean;
}

/** the settings as they are now: the config file and environment, with what admins set through the Settings API on top */
export interface LiveSettingsApi<O = unknown> {
  /** this plugin's options as they are now (ctx.options holds them as they were at start) */
  options(): O;
  /** any setting by its dotted path, as it is now: `images.keepReleases`, `plugins.sites.options.previewDomain` */
  get(path: string): unknown;
  /** called once settings changed, on this instance or another serving the database, with the dotted paths changed */
  onChange(fn: (changed: readonly string[]) => void | Promise<void>): () => void;
}

/** a plugin's context without the kernel services: who it is, its settings, and registration */
export interface PluginRegistration<O = unknown, D = Readonly<Record<string, unknown>>> {
  /** the plugin's name */
  readonly name: string;
  /** its options as they were at start, validated by the definition's `options` */
  readonly options: O;
  /** the options an admin may change at run time (declared in the definition's `settings`), and every setting, as they are now */
  readonly settings: LiveSettingsApi<O>;
  /** the environment variables the plugin declared in `env` */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** this installation's id: one per database, shared by every instance serving it; marks what it owns outside the database (e.g. containers) */
  readonly installationId: string;
  /** this plugin's own folder under DATA_DIR (created on demand). */
  readonly dataDir: string;
  /** its logger (its lines carry the plugin's name) */
  readonly log: Logger;
  /** the APIs returned by the setup of the plugins named in `requires`, typed by their references. */
  readonly deps: D;
  /** adds a route under /api/v1 */
  readonly routes: { add(route: AnyRoute | RouteDef<any, any, any, any, any>): void };
  /** routes under /api (outside /api/v1), for single-action tokens and signed receivers. */
  readonly webhooks: { add(route: AnyRoute | RouteDef<any, any, any, any, any>): void };
  /** declares its scopes: name, description and the least role that may hold each */
  readonly scopes: { define(scopes: Record<string, ScopeDef>): void };
  /** defines job types and reads jobs */
  readonly jobs: JobsApi;
  /** work on an interval or a cron schedule: each slot runs once across all instances */
  readonly schedule: {
    every(name: string, intervalMs: number, run: () => Promise<void>): void;
    /** five fields or a nickname, server time (parseCron): six fields (seconds) stop the boot, schedules are minute-grained */
    cron(name: string, expression: string, run: () => Promise<void>): void;
  };
  /** its SQL migrations, a folder of files run in name order */
  readonly migrations: { from(dir: string | URL): void };
  /** plugs into extension points, and reads what was plugged into its own */
  readonly extensions: ExtensionsApi;
  /** adds to GET /overview: counts and attention items */
  readonly overview: { add(contributor: OverviewContributor): void };
  /** serves the files of a folder at `/` (outside /api): one plugin at a time, the portal */
  readonly web: { serve(dir: string): void };
  /** rules of which resources a caller may see or act on, and the test of every plugin's rules */
  readonly visibility: {
    add(rule: VisibilityRule): void;
    /** a test for these resources by every plugin's rules (one call per rule): what the caller may see (`read`) or act on (`act`) */
    filter(principal: Principal, resources: readonly (string | null)[], need: 'read' | 'act'): Promise<(resource: string | null) => boolean>;
  };
  /** metric families this plugin measures, scraped at /metrics */
  readonly metrics: { add(family: MetricFamily): void };
  /** a part /readyz shows under this plugin's name (the engine, the edge) */
  readonly health: { add(check: HealthCheck): void };
  /** runs once every plugin is set up, as the service starts: where I/O begins */
  onStart(fn: () => Promise<void> | void): void;
  /** runs as the service stops */
  onStop(fn: () => Promise<void> | void): void;
  /** a verb of the command line, `npm run cli -- <plugin> <verb> …`, run in a kernel set up but not serving (no onStart) */
  readonly commands: { add(command: PluginCommand): void };
}

export interface PluginCommand {
  /** `<plugin name> <verb>`, e.g. `edge stop` */
  name: string;
  /** one line for the CLI's usage text */
  usage: string;
  /** what it prints; a thrown error ends the CLI with its message */
  run(args: readonly string[]): Promise<string>;
}

export interface PluginDef<Api = unknown, O extends TSchema = TSchema, Req extends readonly Requirement[] = readonly Requirement[], Name extends string = string, S extends ServiceName = ServiceName> {
  /** the name it is configured under (`plugins.<name>`) and required by */
  name: Name;
  /** its own version (semver) */
  version: string;
  /** the SDK versions this plugin works with, a semver range such as '^1'; the kernel refuses to load it under an SDK outside it */
  sdk?: string;
  /** one line, shown by GET /plugins and the CLI */
  description?: string;
  /** the plugins whose API this one uses, loaded before it: their typed references (`plugins/<name>/api.ts`), which type ctx.deps */
  requires?: Req;
  /**
   * the environment variables this plugin reads: ctx.env holds exactly these (nothing when the plugin declares none).
   */
  env?: readonly string[];
  /** the schema of its options (`plugins.<name>.options`), with their defaults */
  options?: O;
  /** the options an admin may change at run time, through GET/PATCH /settings and the Settings page (validated by `options`) */
  settings?: Readonly<Record<string, SettingDef>>;
  /** the kernel services it uses (`['db', 'events']`): its context holds exactly these, in its type too; omitted, every service */
  services?: readonly S[];
  /** the extension points this plugin offers (declared in its api.ts): GET /plugins lists them with what was plugged in */
  extensionPoints?: readonly ExtensionPoint<any>[];
  /**
   * the problem codes its answers carry (`problem(409, …, { code: 'volume-in-use' })`), by code: listed in
   * docs/reference/problem-codes.md. Codes the kernel declares (`missing-scope`, `invalid-request`, …) need no repeating.
   */
  problems?: Readonly<Record<string, ProblemDef>>;
  /** registers only; I/O belongs in onStart. Returns the plugin's API for the plugins that require it. */
  setup(ctx: PluginContext<Static<O>, DepsOf<Req>, S>): Api | Promise<Api>;
}
export function definePlugin<Api, O extends TSchema = TSchema, const Req extends readonly Requirement[] = [], const Name extends string = string, S extends ServiceName = ServiceName>(
  plugin: PluginDef<Api, O, Req, Name, S>,
): PluginDef<Api, O, Req, Name, S> {
  return Object.freeze({ ...plugin });
}
