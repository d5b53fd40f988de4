// What templates look like in answers: a list entry, the full template with its typed variables (never a value a deploy made).
import { Nullable, Type } from '../../sdk/index.ts';
import type { Template, TemplateVariable } from './format.ts';

export const TemplateSummarySchema = Type.Object({
  source: Type.String(), id: Type.String(), version: Type.String(), name: Type.String(),
  categories: Type.Array(Type.String()), description: Type.String(), logo: Nullable(Type.String()),
});

const VariableSchema = Type.Object({
  name: Type.String(),
  type: Type.Union(['string', 'secret', 'hostname', 'port', 'email', 'enum'].map((t) => Type.Literal(t))),
  description: Type.String(),
  generate: Type.Optional(Type.String({ description: 'made at deploy when no value is given: password:N, hex:N, base64:N, uuid, jwt:VARIABLE' })),
  default: Type.Optional(Type.String()),
  pattern: Type.Optional(Type.String()),
  range: Type.Optional(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 })),
  values: Type.Optional(Type.Array(Type.String(), { description: 'an enum\'s choices' })),
  required: Type.Boolean({ description: 'a deploy must give it: no default, no generator' }),
  secret: Type.Boolean({ description: 'its value is never shown again once deployed' }),
  binds: Type.Array(Type.String(), { description: 'the edge labels it feeds (a hostname\'s route)' }),
});

export const TemplateSchema = Type.Object({
  ...TemplateSummarySchema.properties,
  links: Type.Record(Type.String(), Type.String()),
  instructions: Nullable(Type.String({ description: 'what to do once deployed' })),
  variables: Type.Array(VariableSchema),
  compose: Type.String(),
});

export const summaryOf = (t: Template) => ({ source: t.source, id: t.id, version: t.version, name: t.name, categories: t.categories, description: t.description, logo: t.logo });

const variableOf = (v: TemplateVariable) => ({
  name: v.name, type: v.type, description: v.description,
  ...(v.generate !== undefined ? { generate: v.generate } : {}), ...(v.default !== undefined ? { default: v.default } : {}),
  ...(v.pattern !== undefined ? { pattern: v.pattern } : {}), ...(v.range ? { range: v.range } : {}), ...(v.values ? { values: v.values } : {}),
  required: v.default === undefined && !v.generator, secret: v.type === 'secret' || v.generator !== undefined, binds: v.binds,
});

export const templateOf = (t: Template) => ({ ...summaryOf(t), links: t.links, instructions: t.instructions, variables: t.variables.map(variableOf), compose: t.compose });
