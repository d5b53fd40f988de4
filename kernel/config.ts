// Configuration: config/default.json, then config/$NODE_ENV.json, config/local.json (the CLI's), an optional file and the environment; validated once.
import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { compileStrict } from './http/validate.ts';

const PluginEntry = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  /** an npm package name for third-party plugins */
  package: Type.Optional(Type.String({ minLength: 1 })),
  /** a folder or file path (relative to the install root) */
  path: Type.Optional(Type.String({ minLength: 1 })),
  options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false });

/** one identity provider for portal sign-in (OIDC, authorization code with PKCE) */
export const OidcProviderSchema = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$', description: 'its name in /auth/oidc/{name}' }),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'the button says "Sign in with <label>" (default: the name)' })),
  issuer: Type.String({ minLength: 1, maxLength: 500, description: 'the issuer URL; its discovery document is fetched through the outbound policy' }),
  clientId: Type.String({ minLength: 1, maxLength: 300 }),
  clientSecret: Type.String({ minLength: 1, maxLength: 500 }),
  groupsClaim: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_:/-]+(\\.[A-Za-z0-9_:/-]+)*$', description: 'the dotted path of the groups in the ID token: groups (default), realm_access.roles' })),
  mappings: Type.Optional(Type.Array(Type.Object({
    group: Type.String({ minLength: 1, maxLength: 200 }),
    role: Type.Optional(Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')])),
    team: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' })),
  }, { additionalProperties: false }), { maxItems: 200, description: 'a group gives a role (the highest of those matched) and/or a team; recomputed at every sign-in' })),
  jit: Type.Optional(Type.Boolean({ description: 'the first sign-in creates the account (default true); false: only accounts linked before sign in' })),
  allowedDomains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description: 'a new account needs a verified e-mail address in one of these domains' })),
  defaultRole: Type.Optional(Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin'), Type.Null()], { description: 'the role without a mapped one; null (default): such a sign-in is refused' })),
}, { additionalProperties: false });

export const ConfigSchema = Type.Object({
  host: Type.String(),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  dataDir: Type.String(),
  publicUrl: Type.Union([Type.String(), Type.Null()]),
  databaseUrl: Type.Optional(Type.String()),
  secretKey: Type.Optional(Type.String()),
  database: Type.Object({
    poolSize: Type.Integer({ minimum: 2, maximum: 100 }),
    /** backoff of the LISTEN connection's reconnects */
    reconnect: Type.Object({ minMs: Type.Integer({ minimum: 1 }), maxMs: Type.Integer({ minimum: 1 }) }),
  }),
  http: Type.Object({
    bodyLimit: Type.Integer({ minimum: 1024 }), uploadLimit: Type.Integer({ minimum: 1024 }),
    /** how long a request's line and headers may take to arrive, and the whole request with its body: past either, 408 and the connection closes */
    headersTimeoutMs: Type.Integer({ minimum: 100 }), requestTimeoutMs: Type.Integer({ minimum: 100 }),
    /** the answers of one turn of the event loop written together at its end (less CPU under load); false writes each at once */
    batchAnswers: Type.Optional(Type.Boolean({ default: true })),
  }),
  /** SIGTERM/SIGINT: how long requests in flight and running jobs may take to finish (new requests are answered 503 meanwhile) */
  shutdown: Type.Object({ graceMs: Type.Integer({ minimum: 0 }) }),
  rateLimit: Type.Object({
    perMinute: Type.Integer({ minimum: 1 }),
    /** bearers (and webhook signatures) that fail verification, per client address */
    failedAuthPerMinute: Type.Integer({ minimum: 1 }),
    /** webhook calls under /api, per client address and per resource */
    webhookPerMinute: Type.Integer({ minimum: 1 }),
    /** the per-token limit held across every instance on the database: budget taken in chunks, spent locally */
    shared: Type.Object({
      enabled: Type.Boolean(),
      /** the share of the limit one grant covers (at least one request): the most an instance holds unspent */
      chunkFraction: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    }),
  }),
  /** Prometheus: `listen` (host:port) serves /metrics there without a token; unset, /metrics is on the main port and needs metrics:read */
  metrics: Type.Object({ listen: Type.Union([Type.String({ pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\s]+):[0-9]{1,5}$' }), Type.Null()]) }),
  /** portal sign-in sessions */
  sessions: Type.Object({
    ttlMs: Type.Integer({ minimum: 1 }),
    /** failed sign-ins per account and per client address in a minute */
    failedSignInsPerMinute: Type.Integer({ minimum: 1 }),
    /** every portal sign-in needs a second factor (TOTP); users without one enrol while signing in */
    requireTotp: Type.Boolean(),
  }),
  /** sign-in with identity providers (OIDC) */
  auth: Type.Object({
    oidc: Type.Object({
      providers: Type.Array(OidcProviderSchema, { maxItems: 20, description: 'identity providers users sign in with (their client secrets are never shown)' }),
      enforceSso: Type.Boolean({ description: 'portal sign-in with a password is refused, but for the admins named in breakGlass' }),
      breakGlass: Type.Array(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }), { maxItems: 10, description: 'local admins who may still sign in with a password while enforceSso' }),
    }, { additionalProperties: false }),
  }, { additionalProperties: false }),
  /** addresses or CIDRs whose X-Forwarded-For/-Proto/-Host are honoured */
  trustedProxies: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000 }),
  jobs: Type.Object({
    concurrency: Type.Integer({ minimum: 1, maximum: 64 }),
    outputLimit: Type.Integer({ minimum: 1024 }),
    /** a running job's lease: another instance takes the job over (failed, "interrupted") when it is not renewed in time */
    leaseMs: Type.Integer({ minimum: 1000 }),
    /** how often leases are renewed and expired ones looked for (at most a quarter of the lease) */
    renewMs: Type.Integer({ minimum: 50 }),
    /** how often an instance looks for queued jobs it was not told about (enqueued elsewhere) */
    pollMs: Type.Integer({ minimum: 50 }),
  }),
  outbound: Type.Object({
    allow: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { description: 'hosts (a name, *.suffix), addresses or CIDRs reachable although not global unicast' }),
    allowHostnames: Type.Union([Type.Boolean(), Type.Array(Type.String({ minLength: 1, maxLength: 255 }))], { description: 'true: names are looked up; otherwise only these names (and those in allow)' }),
  }, { additionalProperties: false }),
  /** image retention: prune keeps every image of the last keepReleases releases of each stack */
  images: Type.Object({ keepReleases: Type.Integer({ minimum: 1, maximum: 1000, description: 'releases per stack whose images are kept' }) }, { additionalProperties: false }),
  log: Type.Object({ level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))) }),
  plugins: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), PluginEntry),
}, { additionalProperties: false });
/** where a layer of the configuration comes from: `default` (config/default.json, and what the caller of boot passes), `file` (the install's files), `env` */
export type ConfigSource = 'default' | 'file' | 'env';
export interface ConfigLayer { source: ConfigSource; values: Record<string, unknown> }
/**
 * `namedPlugins`: the plugins the install's own config names (every layer but config/default.json), as opposed to those on by default.
 * `layers`: every layer in the order merged, for the settings service to tell which paths the operator's files and environment set.
 */
export type Config = Static<typeof ConfigSchema> & { root: string; namedPlugins: readonly string[]; layers: readonly ConfigLayer[] };
export type PluginEntry = Static<typeof PluginEntry>;

const checkConfig = compileStrict(ConfigSchema);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** deep merge: objects merge key by key, everything else replaces. */
export function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Record<string, unknown>, v) : v;
  return out;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`config: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** this install's own settings, kept out of git: the file `npm run cli -- plugins add|enable|disable` writes */
export const localConfigFile = (root: string): string => resolve(root, 'config/local.json');

/**
 * Loads the configuration of an install rooted at `root`. `overrides` (tests, CLI) come last.
 * Environment: DOCKWRIGHT_CONFIG (extra file), PORT, HOST, DATA_DIR, DATABASE_URL, SECRET_KEY, PUBLIC_URL, LOG_LEVEL.
 */
export function loadConfig(root: string, env: NodeJS.ProcessEnv = process.env, overrides: Record<string, unknown> = {}): Config {
  let raw = readJson(resolve(root, 'config/default.json'));
  const layers: ConfigLayer[] = [{ source: 'default', values: raw }];
  const namedPlugins = new Set<string>();
  const layer = (over: Record<string, unknown>, source: ConfigSource = 'file') => {
    if (isObject(over.plugins)) for (const name of Object.keys(over.plugins)) namedPlugins.add(name);
    layers.push({ source, values: over });
    raw = merge(raw, over);
  };
  const envFile = resolve(root, `config/${env.NODE_ENV ?? 'development'}.json`);
  if (env.NODE_ENV && existsSync(envFile)) layer(readJson(envFile));
  const local = localConfigFile(root);
  if (existsSync(local)) layer(readJson(local));
  if (env.DOCKWRIGHT_CONFIG) layer(readJson(resolve(root, env.DOCKWRIGHT_CONFIG)));
  const fromEnv: Record<string, unknown> = {};
  if (env.PORT) fromEnv.port = Number(env.PORT);
  if (env.HOST) fromEnv.host = env.HOST;
  if (env.DATA_DIR) fromEnv.dataDir = env.DATA_DIR;
  if (env.DATABASE_URL) fromEnv.databaseUrl = env.DATABASE_URL;
  if (env.SECRET_KEY) fromEnv.secretKey = env.SECRET_KEY;
  if (env.PUBLIC_URL) fromEnv.publicUrl = env.PUBLIC_URL;
  if (env.LOG_LEVEL) fromEnv.log = { level: env.LOG_LEVEL };
  layers.push({ source: 'env', values: fromEnv });
  raw = merge(raw, fromEnv);
  // what the caller of boot passes (tests) is a base like config/default.json: the settings API may change it
  layer(overrides, 'default');
  const errors = checkConfig(raw);
  if (errors) throw new Error(`config: invalid: ${errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`);
  const config = raw as Config;
  return { ...config, root, dataDir: resolve(root, config.dataDir), namedPlugins: [...namedPlugins], layers };
}
