// Type-checked against the client types openapi-typescript generates from the served document (tests/contract/openapi-types.test.ts).
import type { paths } from './openapi.ts';

type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } } ? T : never;
type Concrete<T> = unknown extends T ? 'unknown' : [T] extends [never] ? 'missing' : 'concrete';

type StackList = Json<'/api/v1/stacks', 'get', 200>;
type Stack = Json<'/api/v1/stacks/{name}', 'get', 200>;

export const listIsConcrete: Concrete<StackList> = 'concrete';
export const stackIsConcrete: Concrete<Stack> = 'concrete';
export const itemIsConcrete: Concrete<StackList[number]> = 'concrete';

// the fields a client reads have their types, not unknown
export function fields(list: StackList, stack: Stack): [string, number, string, boolean, string | null] {
  const first = list[0];
  return [first.name, stack.revision, stack.services[0].containers[0].state, stack.webhooks.deploy.enabled, stack.lastDeploy?.jobId ?? null];
}
