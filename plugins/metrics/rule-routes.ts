// The routes of alert rules (GET/POST /alerts/rules, GET/PUT/DELETE /alerts/rules/{id}) and silences (GET/POST /alerts/silences, DELETE /alerts/silences/{id}).
import { defineRoute, problem, reply, Type, type AnyRoute, type Principal, type Static } from '../../sdk/index.ts';
import { builtInRules, durationMs, type RuleRow, type RuleSpec, type RuleStore } from './rule-store.ts';
import { ruleMetrics } from './rule-runner.ts';

const Duration = Type.String({ pattern: '^[0-9]{1,7}(s|m|h)$', description: '<n>s, <n>m or <n>h' });
const Scope = Type.String({
  pattern: '^(host|stack:[a-z0-9][a-z0-9-]{0,62}|container:[A-Za-z0-9_.*?/-]{1,128})$',
  description: 'host; stack:<name> (its containers summed, percentages their highest); container:<glob> (each container whose name or <stack>/<service> matches, `*` any run, `?` one character)',
});
const RuleBody = Type.Object({
  scope: Scope,
  metric: Type.String({ minLength: 1, maxLength: 40, description: `host: ${ruleMetrics.host.join(', ')}; stack and container: ${ruleMetrics.container.join(', ')}` }),
  op: Type.Union([Type.Literal('>'), Type.Literal('<')]),
  threshold: Type.Number(),
  for: { ...Duration, description: 'how long the condition must hold before the alert opens' },
  recover: Type.Optional(Type.Number({ description: 'the value past which the alert resolves (hysteresis): at or below it for `>`, at or above it for `<`; default the threshold' })),
  severity: Type.Union([Type.Literal('critical'), Type.Literal('warning'), Type.Literal('info')]),
  cooldown: Type.Optional({ ...Duration, description: 'after it resolves, how long before it may open again; default 0s' }),
  channels: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 20, uniqueItems: true, description: 'only these alert channels hear of it (those that want its kind and severity); default every channel that does' })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false });
const RuleView = Type.Composite([Type.Omit(RuleBody, ['enabled']), Type.Object({
  id: Type.String(), kind: Type.String({ description: 'the alert kind it raises: rule:<id>' }), builtIn: Type.Boolean(), enabled: Type.Boolean(),
  description: Type.Optional(Type.String()), createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }),
})]);
const Id = Type.Object({ id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }) });
const SilenceBody = Type.Object({
  scope: Type.String({ pattern: '^(\\*|host|rule:[a-z0-9][a-z0-9-]{0,63}|stack:[a-z0-9][a-z0-9-]{0,62}|container:[A-Za-z0-9_.*?/-]{1,128})$', description: '*, host, rule:<id>, stack:<name> or container:<glob>' }),
  until: Type.String({ format: 'date-time' }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
}, { additionalProperties: false });
const SilenceView = Type.Composite([SilenceBody, Type.Object({
  id: Type.String({ format: 'uuid' }), createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.Object({ kind: Type.String(), name: Type.Optional(Type.String()) }),
})]);

export interface RuleRouteDeps {
  rules: RuleStore;
  allowedStacks(principal: Principal, stacks: readonly string[]): Promise<Set<string>>;
  /** the rules changed: the next round reads them again */
  changed(): void;
}

const descriptions = new Map(builtInRules.map((r) => [r.id, r.description]));
const view = (r: RuleRow): Static<typeof RuleView> => {
  const { builtIn, enabled, createdAt, updatedAt, id, ...spec } = r;
  return { ...spec, id, kind: `rule:${id}`, builtIn, enabled, ...(descriptions.has(id) && builtIn ? { description: descriptions.get(id) } : {}), createdAt, updatedAt };
};
const stackOf = (scope: string) => (scope.startsWith('stack:') ? scope.slice(6) : null);

/** the checks beyond the schema: a metric of the scope, a recovery on the right side, `for` within a week */
function specOf(body: Static<typeof RuleBody>): RuleSpec {
  const known = body.scope === 'host' ? ruleMetrics.host : ruleMetrics.container;
  if (!known.includes(body.metric)) throw problem(400, `no metric "${body.metric}" for ${body.scope === 'host' ? 'the host' : 'a stack or container'} (known: ${known.join(', ')})`, { errors: [{ path: '/body/metric', message: 'unknown metric' }] });
  if (body.recover !== undefined && (body.op === '>' ? body.recover > body.threshold : body.recover < body.threshold)) {
    throw problem(400, `recover must be ${body.op === '>' ? 'at most' : 'at least'} the threshold: the alert resolves past it`, { errors: [{ path: '/body/recover', message: 'on the wrong side of the threshold' }] });
  }
  for (const field of ['for', 'cooldown'] as const) {
    const value = body[field];
    if (value !== undefined && durationMs(value) > 7 * 86_400_000) throw problem(400, `${field} may be a week at most`, { errors: [{ path: `/body/${field}`, message: 'longer than a week' }] });
  }
  const { enabled: _enabled, ...spec } = body;
  return spec;
}

export function ruleRoutes(deps: RuleRouteDeps): AnyRoute[] {
  const visibleRule = async (principal: Principal, r: RuleRow | null) => {
    const stack = r && stackOf(r.scope);
    return !!r && (!stack || (await deps.allowedStacks(principal, [stack])).has(stack));
  };
  /** a rule on a stack the caller may not read is refused as that stack's series are: 404 */
  const checkStack = async (principal: Principal, scope: string) => {
    const stack = stackOf(scope);
    if (stack && !(await deps.allowedStacks(principal, [stack])).has(stack)) throw problem(404, `there is no stack "${stack}"`);
  };
  const found = async (principal: Principal, id: string) => {
    const r = await deps.rules.get(id);
    if (!r || !(await visibleRule(principal, r))) throw problem(404, `there is no alert rule "${id}"`);
    return r;
  };
  return [
    defineRoute({
      method: 'GET', path: '/alerts/rules', scopes: ['alerts:read'], response: Type.Array(RuleView),
      summary: 'List the alert rules: the built-in ones (builtIn: true; they may be disabled, not deleted) and the added ones; rules of stacks hidden from the caller are left out',
      handler: async ({ principal }) => {
        const all = await deps.rules.list();
        const stacks = [...new Set(all.map((r) => stackOf(r.scope)).filter((s): s is string => !!s))];
        const allowed = await deps.allowedStacks(principal, stacks);
        return all.filter((r) => { const s = stackOf(r.scope); return !s || allowed.has(s); }).map(view);
      },
    }),
    defineRoute({
      method: 'POST', path: '/alerts/rules', scopes: ['alerts:write'], body: RuleBody, response: RuleView, status: 201, errors: [400, 404], activity: 'alert.rule.create',
      summary: 'Add an alert rule: its alerts (kind rule:<id>) open once the condition held `for`, and resolve past `recover`',
      handler: async ({ body, principal }) => {
        const spec = specOf(body);
        await checkStack(principal, spec.scope);
        const row = await deps.rules.create(spec, body.enabled ?? true);
        deps.changed();
        return reply(201, view(row));
      },
    }),
    defineRoute({
      method: 'GET', path: '/alerts/rules/:id', scopes: ['alerts:read'], params: Id, response: RuleView, errors: [404],
      summary: 'One alert rule',
      handler: async ({ params, principal }) => view(await found(principal, params.id)),
    }),
    defineRoute({
      method: 'PUT', path: '/alerts/rules/:id', scopes: ['alerts:write'], params: Id, body: RuleBody, response: RuleView, errors: [400, 404], activity: 'alert.rule.update', resource: 'alert-rule:{id}',
      summary: 'Replace an alert rule (a built-in one too: its threshold, duration, or enabled: false to turn it off)',
      handler: async ({ params, body, principal }) => {
        await found(principal, params.id);
        const spec = specOf(body);
        await checkStack(principal, spec.scope);
        const row = await deps.rules.update(params.id, spec, body.enabled ?? true);
        if (!row) throw problem(404, `there is no alert rule "${params.id}"`);
        deps.changed();
        return view(row);
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/alerts/rules/:id', scopes: ['alerts:write'], params: Id, status: 204, errors: [404, 409], activity: 'alert.rule.delete', resource: 'alert-rule:{id}',
      summary: 'Delete an added alert rule (its open alerts resolve); a built-in one is refused with 409 (disable it instead)',
      handler: async ({ params, principal }) => {
        const r = await found(principal, params.id);
        if (r.builtIn) throw problem(409, `alert rule "${params.id}" is built in: disable it (PUT with enabled: false) instead`, { code: 'built-in-rule' });
        await deps.rules.remove(params.id);
        deps.changed();
      },
    }),
    defineRoute({
      method: 'GET', path: '/alerts/silences', scopes: ['alerts:read'], response: Type.Array(SilenceView),
      summary: 'List the silences still running (maintenance windows): while one covers a rule\'s subject, its alerts do not open; those of stacks hidden from the caller are left out',
      handler: async ({ principal }) => {
        const all = await deps.rules.silences();
        const stacks = [...new Set(all.map((x) => stackOf(x.scope)).filter((x): x is string => !!x))];
        const allowed = await deps.allowedStacks(principal, stacks);
        return all.filter((x) => { const stack = stackOf(x.scope); return !stack || allowed.has(stack); });
      },
    }),
    defineRoute({
      method: 'POST', path: '/alerts/silences', scopes: ['alerts:write'], body: SilenceBody, response: SilenceView, status: 201, errors: [400, 404], activity: 'alert.silence.create',
      summary: 'Silence alert rules until a time: all (*), the host\'s, one rule\'s, a stack\'s or matching containers\'',
      handler: async ({ body, principal }) => {
        const until = new Date(body.until);
        if (Number.isNaN(until.getTime()) || until.getTime() <= Date.now()) throw problem(400, '`until` must be a time to come', { errors: [{ path: '/body/until', message: 'not in the future' }] });
        if (until.getTime() > Date.now() + 366 * 86_400_000) throw problem(400, '`until` may be a year ahead at most', { errors: [{ path: '/body/until', message: 'more than a year ahead' }] });
        await checkStack(principal, body.scope);
        const row = await deps.rules.addSilence({ scope: body.scope, until, reason: body.reason, createdBy: principal.actor });
        deps.changed();
        return reply(201, row);
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/alerts/silences/:id', scopes: ['alerts:write'], params: Type.Object({ id: Type.String({ format: 'uuid' }) }), status: 204, errors: [404], activity: 'alert.silence.delete', resource: 'alert-silence:{id}',
      summary: 'End a silence now',
      handler: async ({ params, principal }) => {
        const silence = (await deps.rules.silences(new Date(0))).find((x) => x.id === params.id);
        const stack = silence && stackOf(silence.scope);
        // a silence of a stack hidden from the caller answers as one that does not exist
        if (!silence || (stack && !(await deps.allowedStacks(principal, [stack])).has(stack)) || !(await deps.rules.removeSilence(params.id))) {
          throw problem(404, `there is no silence ${params.id}`);
        }
        deps.changed();
      },
    }),
  ];
}
