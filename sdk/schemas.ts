// Answer schemas many plugins share: actors, jobs, a job accepted by a write, nullable values.
import { Type, type TSchema, type TNull, type TUnion } from '@sinclair/typebox';

/** a value or null (OpenAPI 3.1: anyOf with null) */
export const Nullable = <T extends TSchema>(schema: T): TUnion<[T, TNull]> => Type.Union([schema, Type.Null()]);

export const ActorSchema = Type.Object({
  kind: Type.Union([Type.Literal('user'), Type.Literal('webhook'), Type.Literal('github'), Type.Literal('system'), Type.Literal('federation')]),
  name: Type.Optional(Type.String()), tokenId: Type.Optional(Type.String()), address: Type.Optional(Type.String()),
  channel: Type.Optional(Type.Union([Type.Literal('portal'), Type.Literal('mcp')])),
});

export const JobStatusSchema = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('canceled')]);

export const JobSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String(),
  resource: Nullable(Type.String()),
  status: JobStatusSchema,
  done: Type.Boolean(),
  output: Type.String({ description: 'the action log, secrets redacted, capped (head and newest tail kept)' }),
  result: Type.Unknown(),
  error: Nullable(Type.String()),
  actor: ActorSchema,
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Nullable(Type.String({ format: 'date-time' })),
  finishedAt: Nullable(Type.String({ format: 'date-time' })),
});

/** the answer of a write that queued a job (202): the job, its id again as jobId, and whether it joined a queued one */
export const JobAcceptedSchema = Type.Object({
  ...JobSchema.properties,
  jobId: Type.String({ format: 'uuid' }),
  attached: Type.Optional(Type.Boolean({ description: 'true when the call joined a job of the same kind that was already queued' })),
});
