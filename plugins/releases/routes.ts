// The release endpoints of a stack: its releases (what changed from the one before), rollback, update checks, the last check, applying updates.
import { CORE_SCHEMA, load } from 'js-yaml';
import { ActorSchema, defineRoute, pageOf, JobAcceptedSchema, Nullable, problem, reply, Type, type AnyRoute, type JobHandle, type Static } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import type { Release, ReleaseStore } from './store.ts';

const Policy = Type.Union(['digest', 'patch', 'minor', 'major', 'none'].map((p) => Type.Literal(p)), { description: 'the label dockwright.update (default digest)' });
const Origin = Type.Union([Type.Literal('compose'), Type.Literal('update')], { description: 'why it runs this image: its compose file, or an update on top of it' });
const ServiceImage = Type.Object({ image: Type.String(), digest: Nullable(Type.String()), imageId: Nullable(Type.String({ description: 'the local image id (what tells two builds apart: a built image has no digest)' })) });
const ReleaseView = Type.Object({
  number: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  actor: ActorSchema,
  jobId: Nullable(Type.String({ format: 'uuid' })),
  kind: Type.Union([Type.Literal('deploy'), Type.Literal('rollback'), Type.Literal('update')]),
  rolledBackTo: Nullable(Type.Integer({ description: 'the release a rollback deployed again' })),
  revision: Type.Integer({ description: 'the stack revision whose compose file and variables were deployed' }),
  commit: Nullable(Type.String()),
  services: Type.Array(Type.Object({ service: Type.String(), image: Type.String(), digest: Nullable(Type.String()), imageId: Nullable(Type.String()), policy: Policy, origin: Origin })),
  kept: Type.Boolean({ description: 'among the last releases.keep releases: its images are never removed by Dockwright' }),
  changes: Type.Object({
    revision: Nullable(Type.Object({ from: Type.Integer(), to: Type.Integer() })),
    added: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
    changed: Type.Array(Type.Object({ service: Type.String(), from: ServiceImage, to: ServiceImage }), { description: 'services whose image changed: its reference, digest or image id (a new build)' }),
    commit: Nullable(Type.Object({ from: Nullable(Type.String()), to: Nullable(Type.String()) }, { description: 'the source commit, when it changed' })),
    compose: Type.Object({
      changed: Type.Boolean({ description: 'the compose file differs' }),
      services: Type.Array(Type.String(), { description: 'services whose definition in it changed (other than their image)' }),
    }),
    variables: Type.Array(Type.String(), { description: 'the NAMES of the variables set, unset or changed (never their values)' }),
  }, { description: 'what differs from the release before it (everything is added for the first)' }),
});
const CheckView = Type.Object({
  service: Type.String(), image: Type.String({ description: 'the image it runs' }), policy: Policy, origin: Origin,
  tag: Nullable(Type.String()), digest: Nullable(Type.String({ description: 'the digest it runs' })),
  candidate: Nullable(Type.Object({ tag: Type.String(), digest: Type.String() }, { description: 'the newest image under its policy' })),
  available: Type.Boolean(), error: Nullable(Type.String()),
});

/** each service's definition in a compose file, its image left out (image changes are told by `changed`); null when it does not parse plainly */
function serviceDefinitions(compose: string): Map<string, string> | null {
  try {
    const doc = load(compose, { schema: CORE_SCHEMA }) as { services?: Record<string, Record<string, unknown> | null> } | null;
    return new Map(Object.entries(doc?.services ?? {}).map(([name, def]) => {
      const { image: _image, ...rest } = def ?? {};
      return [name, JSON.stringify(rest)];
    }));
  } catch {
    return null;
  }
}

/** the names of the variables set, unset or given another value from `before` to `now` */
function variablesChanged(before: Record<string, string>, now: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...names].filter((n) => before[n] !== now[n]).sort();
}

/** what changed from `before` to `r`; `variables`: the sealed variables opened (values stay here: only names are answered) */
function changesOf(r: Release, before: Release | undefined, variables: (r: Release) => Record<string, string>): Static<typeof ReleaseView>['changes'] {
  const old = new Map(before?.services.map((s) => [s.service, s]) ?? []);
  const now = new Map(r.services.map((s) => [s.service, s]));
  const imageOf = (s: Release['services'][number]) => ({ image: s.image, digest: s.digest, imageId: s.imageId ?? null });
  const composeChanged = before !== undefined && before.compose !== r.compose;
  const [oldDefs, newDefs] = composeChanged ? [serviceDefinitions(before.compose), serviceDefinitions(r.compose)] : [null, null];
  const services = !composeChanged ? []
    : oldDefs && newDefs ? [...newDefs].filter(([name, def]) => oldDefs.has(name) && oldDefs.get(name) !== def).map(([name]) => name)
    : r.services.map((s) => s.service).filter((n) => old.has(n));
  return {
    revision: before && before.revision !== r.revision ? { from: before.revision, to: r.revision } : null,
    added: r.services.filter((s) => !old.has(s.service)).map((s) => s.service),
    removed: [...old.keys()].filter((s) => !now.has(s)),
    changed: r.services.flatMap((s) => {
      const o = old.get(s.service);
      return o && (o.image !== s.image || o.digest !== s.digest || (o.imageId ?? null) !== (s.imageId ?? null)) ? [{ service: s.service, from: imageOf(o), to: imageOf(s) }] : [];
    }),
    commit: before && before.commit !== r.commit ? { from: before.commit, to: r.commit } : null,
    compose: { changed: composeChanged, services },
    variables: before ? variablesChanged(variables(before), variables(r)) : [],
  };
}

export function releaseRoutes(deps: {
  stacks: () => StacksApi; store: ReleaseStore; keep: number;
  /** a release's variables, opened (only their names leave this plugin) */
  variables(release: Release): Record<string, string>;
  jobs: { rollback: JobHandle<{ stack: string; release: number }>; check: JobHandle<{ stack: string }>; update: JobHandle<{ stack: string; services?: string[] }> };
}): AnyRoute[] {
  const { store, jobs } = deps;
  const Params = Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) });
  const start = async <I extends { stack: string }>(handle: JobHandle<I>, input: I, actor: Parameters<JobHandle<I>['enqueue']>[1]['actor']) => {
    // the stack's serial key: one deploy, rollback or update of a stack at a time
    const job = await handle.enqueue(input, { actor, resource: `stack:${input.stack}`, serialKey: `stack:${input.stack}` });
    return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
  };
  return [
    defineRoute({
      method: 'GET', path: '/stacks/:name/releases', scopes: ['stacks:read'], params: Params, page: true, response: ReleaseView,
      cursor: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'the number of the last release of the previous page' }),
      summary: 'The releases of the stack, newest first: what each deploy ran (images pinned by digest) and what changed from the one before',
      handler: async ({ params, page, principal }) => {
        await deps.stacks().access(params.name, principal, 'read');
        const rows = await store.page(params.name, page.cursor === undefined ? undefined : Number(page.cursor), page.limit + 2);
        const { shown, next } = pageOf(rows, page.limit, (r) => r.number);
        const newest = page.cursor === undefined ? shown[0]?.number : (await store.latest(params.name))?.number;
        return {
          items: shown.map((r, i) => ({
            number: r.number, createdAt: r.createdAt, actor: r.actor, jobId: r.jobId, kind: r.kind, rolledBackTo: r.rolledBackTo, revision: r.revision, commit: r.commit,
            services: r.services.map(({ service, image, digest, imageId, policy, origin }) => ({ service, image, digest, imageId: imageId ?? null, policy, origin })),
            kept: newest !== undefined && r.number > newest - deps.keep,
            changes: changesOf(r, rows[i + 1], deps.variables),
          })),
          next,
        };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/rollback', scopes: ['stacks:deploy'], params: Params, status: 202, response: JobAcceptedSchema, errors: [409],
      body: Type.Object({ release: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'default: the release before the current one' })) }, { additionalProperties: false }),
      summary: 'Deploy an earlier release again, exactly: its compose file and variables, every image pinned by digest (a job)',
      description: 'The job pulls what the engine no longer has by digest first; when an image cannot be pulled it fails naming it, before anything changes. The new release says which one it rolled back to.',
      activity: 'stack.rollback', resource: 'stack:{name}',
      handler: async ({ params, body, principal }) => {
        await deps.stacks().access(params.name, principal, 'deploy');
        const latest = await store.latest(params.name);
        if (!latest) throw problem(409, `stack "${params.name}" has no release yet: deploy it first`);
        const number = body?.release ?? latest.number - 1;
        if (number < 1) throw problem(409, `stack "${params.name}" has only one release: there is none before it to roll back to`);
        if (!(await store.get(params.name, number))) throw problem(404, `stack "${params.name}" has no release ${number}`);
        return start(jobs.rollback, { stack: params.name, release: number }, principal.actor);
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/updates/check', scopes: ['stacks:deploy'], params: Params, status: 202, response: JobAcceptedSchema, errors: [409],
      summary: "Ask the registries for newer images of the stack's services under their policies, without pulling (a job)",
      activity: 'stack.updates.check', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await deps.stacks().access(params.name, principal, 'deploy');
        if (!(await store.latest(params.name))) throw problem(409, `stack "${params.name}" has no release yet: deploy it first`);
        const job = await jobs.check.enqueue({ stack: params.name }, { actor: principal.actor, resource: `stack:${params.name}` });
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/updates', scopes: ['stacks:read'], params: Params,
      summary: 'The last update check: per service the image it runs and why, its digest, the newest candidate under its policy and whether an update is available',
      response: Type.Object({ name: Type.String(), checkedAt: Nullable(Type.String({ format: 'date-time' })), jobId: Nullable(Type.String()), services: Type.Array(CheckView) }),
      handler: async ({ params, principal }) => {
        await deps.stacks().access(params.name, principal, 'read');
        const last = await store.check(params.name);
        return {
          name: params.name, checkedAt: last?.checkedAt ?? null, jobId: last?.jobId ?? null,
          services: (last?.services ?? []).map(({ alerted: _, ...s }) => s),
        };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/update', scopes: ['stacks:deploy'], params: Params, status: 202, response: JobAcceptedSchema, errors: [409],
      body: Type.Object({ services: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200, description: 'default: every service with an update' })) }, { additionalProperties: false }),
      summary: 'Deploy the available updates (checked again first), watched for dockwright.update.monitor seconds: a bad one is rolled back (a job)',
      description: 'A container that exits, restarts or turns unhealthy in the window, or a new version that never becomes ready, puts every service of the stack back on the previous release (by digest); the job then fails with the reason and the last log lines, and an update-rolled-back alert is raised.',
      activity: 'stack.update', resource: 'stack:{name}',
      handler: async ({ params, body, principal }) => {
        await deps.stacks().access(params.name, principal, 'deploy');
        if (!(await store.latest(params.name))) throw problem(409, `stack "${params.name}" has no release yet: deploy it first`);
        return start(jobs.update, { stack: params.name, ...(body?.services ? { services: body.services } : {}) }, principal.actor);
      },
    }),
  ] as AnyRoute[];
}
