// The configuration-as-code verbs: plan and apply (-f file or folder, --prune) and export, their work imported only when used.
import { usageError } from '../errors.ts';
import type { Verb } from '../verbs.ts';

const files = (values: Record<string, unknown>): string[] => {
  const f = values.file as string[] | undefined;
  if (!f?.length) throw usageError('name the files with -f <file|folder>');
  return f;
};

export const declarativeVerbs: Verb[] = [
  {
    words: ['plan'], summary: 'Show what apply would change to make the server match the files', usage: '',
    options: { file: { type: 'string', short: 'f', multiple: true }, prune: { type: 'boolean' } },
    async run(ctx) {
      const { makePlan, describePlan, changeView } = await import('../declarative/plan.ts');
      const changes = await makePlan(ctx.client(), files(ctx.values), { prune: Boolean(ctx.values.prune) });
      ctx.out.result({ changes: changes.map(changeView) }, () => describePlan(changes));
    },
  },
  {
    words: ['apply'], summary: 'Make the server match the files (If-Match on every write; --prune also deletes what they do not declare, never protected names)', usage: '',
    options: { file: { type: 'string', short: 'f', multiple: true }, prune: { type: 'boolean' } },
    async run(ctx) {
      const { makePlan, applyPlan, changeView, describePlan } = await import('../declarative/plan.ts');
      const changes = await makePlan(ctx.client(), files(ctx.values), { prune: Boolean(ctx.values.prune) });
      if (!changes.length) { ctx.out.result({ changes: [] }, () => describePlan(changes)); return; }
      await applyPlan(changes, (c) => { if (!ctx.out.json) ctx.out.note(`applied: ${c.action} ${c.kind} ${c.name}${c.fields.length ? ` (${c.fields.join(', ')})` : ''}`); });
      ctx.out.result({ changes: changes.map(changeView) }, () => `Applied ${changes.length} change${changes.length === 1 ? '' : 's'}.`);
    },
  },
  {
    words: ['export'], summary: 'Print the declarations of what the server has (all stacks, or those named) as YAML; secrets as names without values', usage: '[name…]',
    options: { kind: { type: 'string', multiple: true } },
    async run(ctx) {
      const [{ exportAll }, { dump }, { kinds }] = await Promise.all([import('../declarative/plan.ts'), import('js-yaml'), import('../declarative/model.ts')]);
      const only = ctx.values.kind as string[] | undefined;
      const bad = only?.filter((k) => !(kinds as readonly string[]).includes(k));
      if (bad?.length) throw usageError(`unknown kind ${bad.join(', ')}`, `kinds: ${kinds.join(', ')}`);
      const docs = await exportAll(ctx.client(), ctx.args, only as never);
      ctx.out.result(docs, () => docs.map((d) => dump(d, { lineWidth: -1, noRefs: true })).join('---\n'));
    },
  },
];
