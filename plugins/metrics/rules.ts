// The rule engine, pure and clock-injected: a condition must hold `for` before an alert opens, clears only past the recovery threshold (hysteresis), waits out its cooldown, and silences keep it from opening.

export type Op = '>' | '<';
export type Severity = 'critical' | 'warning' | 'info';

export interface Rule {
  id: string;
  /** host, stack:<name>, or container:<glob> (each matching container on its own) */
  scope: string;
  metric: string;
  op: Op;
  threshold: number;
  forMs: number;
  /** the value past which a firing rule resolves; the threshold itself without one */
  recover?: number;
  cooldownMs: number;
  severity: Severity;
}

/** one thing a rule looks at, and its value now (null: not known this time, nothing changes) */
export interface Observation { subject: string; stack: string | null; value: number | null }

export interface Silence { id: string; scope: string; until: number }

export type Transition =
  | { type: 'open'; rule: Rule; subject: string; stack: string | null; value: number; since: number; values: number[] }
  /** `quiet`: the first look at a subject found it fine: an alert left open by an earlier run is resolved, if there is one */
  | { type: 'resolve'; rule: Rule; subject: string; stack: string | null; value: number | null; quiet: boolean };

/** `recent`: the last values since the breach began (at most 5), shown with the alert */
interface State { pendingSince?: number; firing: boolean; resolvedAt?: number; stack: string | null; recent: number[] }

const breaches = (r: Rule, v: number) => (r.op === '>' ? v > r.threshold : v < r.threshold);
const recovered = (r: Rule, v: number) => (r.op === '>' ? v <= (r.recover ?? r.threshold) : v >= (r.recover ?? r.threshold));

/** `*` any run of characters, `?` one; without a regular expression, so no glob backtracks for long (at most glob × text steps) */
export function globMatch(glob: string, text: string): boolean {
  let g = 0; let t = 0; let star = -1; let mark = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || glob[g] === text[t])) { g++; t++; }
    else if (g < glob.length && glob[g] === '*') { star = g++; mark = t; }
    else if (star >= 0) { g = star + 1; t = ++mark; }
    else return false;
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

/** a silence covers a rule's subject: `*`, the rule (`rule:<id>`), the subject itself, its stack, or a container glob */
export function silences(s: Pick<Silence, 'scope'>, rule: Pick<Rule, 'id'>, subject: string, stack: string | null): boolean {
  if (s.scope === '*' || s.scope === `rule:${rule.id}` || s.scope === subject) return true;
  if (stack && s.scope === `stack:${stack}`) return true;
  return s.scope.startsWith('container:') && subject.startsWith('container:') && globMatch(s.scope.slice(10), subject.slice(10));
}

export class RuleEngine {
  readonly #now: () => number;
  readonly #states = new Map<string, State>();
  /** the rules of the last round, to resolve the subjects of one dropped since */
  #rules = new Map<string, Rule>();

  constructor(now: () => number) { this.#now = now; }

  /**
   * One round: the enabled rules with what each looks at now. A subject no longer observed (a container gone) and the
   * subjects of a rule no longer given (disabled, deleted) resolve.
   */
  evaluate(rounds: readonly { rule: Rule; observations: readonly Observation[] }[], active: readonly Silence[]): Transition[] {
    const now = this.#now();
    const live = active.filter((s) => s.until > now);
    const out: Transition[] = [];
    const seen = new Set<string>();
    for (const { rule, observations } of rounds) {
      for (const o of observations) {
        const key = `${rule.id}\u0000${o.subject}`;
        seen.add(key);
        const t = this.#step(key, rule, o, now, live);
        if (t) out.push(t);
      }
    }
    const rulesById = new Map(rounds.map((r) => [r.rule.id, r.rule]));
    for (const [key, state] of this.#states) {
      if (seen.has(key)) continue;
      const [ruleId, subject] = key.split('\u0000');
      this.#states.delete(key);
      const rule = rulesById.get(ruleId) ?? this.#rules.get(ruleId);
      if (state.firing && rule) out.push({ type: 'resolve', rule, subject, stack: state.stack, value: null, quiet: false });
    }
    this.#rules = rulesById;
    return out;
  }

  #step(key: string, rule: Rule, o: Observation, now: number, live: readonly Silence[]): Transition | null {
    let state = this.#states.get(key);
    const fresh = !state;
    if (!state) {
      state = { firing: false, stack: o.stack, recent: [] };
      this.#states.set(key, state);
    }
    state.stack = o.stack;
    if (o.value === null || !Number.isFinite(o.value)) return null;
    const v = o.value;
    state.recent = [...state.recent, v].slice(-5);
    if (state.firing) {
      if (!recovered(rule, v)) return null;
      state.firing = false;
      state.resolvedAt = now;
      state.pendingSince = undefined;
      return { type: 'resolve', rule, subject: o.subject, stack: o.stack, value: v, quiet: false };
    }
    if (!breaches(rule, v)) {
      state.pendingSince = undefined;
      state.recent = [];
      return fresh ? { type: 'resolve', rule, subject: o.subject, stack: o.stack, value: v, quiet: true } : null;
    }
    state.pendingSince ??= now;
    if (now - state.pendingSince < rule.forMs) return null;
    if (state.resolvedAt !== undefined && now - state.resolvedAt < rule.cooldownMs) return null;
    if (live.some((s) => silences(s, rule, o.subject, o.stack))) return null;
    state.firing = true;
    return { type: 'open', rule, subject: o.subject, stack: o.stack, value: v, since: state.pendingSince, values: [...state.recent] };
  }

  /** subjects firing now, for the rules list */
  firing(ruleId: string): { subject: string }[] {
    return [...this.#states].filter(([k, s]) => s.firing && k.startsWith(`${ruleId}\u0000`)).map(([k]) => ({ subject: k.split('\u0000')[1] }));
  }
}
