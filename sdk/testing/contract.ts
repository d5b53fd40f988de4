// The response contract: every answer the test client gets must match the served OpenAPI document for its operation and status.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

interface Operation { template: string; pattern: RegExp; params: number; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }
interface Contract { ajv: Ajv; components: Record<string, unknown>; operations: Map<string, Operation[]>; validators: Map<string, ValidateFunction> }

const contracts = new Map<string, Promise<Contract | null>>();

/** the schema with the document's component references replaced by the components: a small schema compiles in a few ms */
function inline(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, components));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return inline(components[ref.slice('#/components/schemas/'.length)], components);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, components)]));
}

function contractOf(doc: { paths: Record<string, Record<string, { responses: Operation['responses'] }>>; components?: { schemas?: Record<string, unknown> } }): Contract {
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  const operations = new Map<string, Operation[]>();
  for (const [template, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const params = (template.match(/\{/g) ?? []).length;
    for (const [method, op] of Object.entries(ops)) {
      const list = operations.get(method.toUpperCase()) ?? [];
      list.push({ template, pattern, params, responses: op.responses });
      operations.set(method.toUpperCase(), list);
    }
  }
  // a literal segment wins over a parameter (/stacks/x/revisions before /stacks/{name}/{…})
  for (const list of operations.values()) list.sort((a, b) => a.params - b.params);
  return { ajv, components: doc.components?.schemas ?? {}, operations, validators: new Map() };
}

/** the document of the server at base, fetched once; null when the server serves none (not a Dockwright kernel) */
function contractAt(base: string): Promise<Contract | null> {
  let found = contracts.get(base);
  if (!found) {
    found = fetch(`${base}/api/v1/openapi.json`).then(async (res) => (res.ok ? contractOf(await res.json()) : null), () => null);
    contracts.set(base, found);
  }
  return found;
}

/** fetches the document of a server that just started, so its first checked answer does not wait for it */
export async function prepareContract(base: string): Promise<void> {
  await contractAt(base);
}

/** forgets the document of a server that stopped (its port may serve another kernel later) */
export function forgetContract(base: string): void {
  contracts.delete(base);
}

export interface Answer { status: number; contentType: string; body: unknown; text: string }

/** throws naming the operation, status and the mismatches when the answer breaks the document */
export async function checkContract(base: string, method: string, path: string, answer: Answer): Promise<void> {
  const contract = await contractAt(base);
  if (!contract) return;
  const bare = path.split('?')[0];
  const op = contract.operations.get(method.toUpperCase())?.find((o) => o.pattern.test(bare));
  // no operation: the router's own 404 / 405, which the document describes in general
  if (!op) return;
  const where = `${method} ${op.template} answered ${answer.status}`;
  const documented = op.responses[String(answer.status)];
  if (!documented) throw new Error(`contract: ${where}, a status the OpenAPI document does not list (${Object.keys(op.responses).join(', ')})`);
  if (!documented.content || !answer.text) return;
  const media = answer.contentType.split(';')[0].trim();
  const declared = Object.keys(documented.content);
  // a range (`*/*`, `text/*`) documents an answer whose type follows what it carries (a site's file)
  const covers = (range: string) => range === media || range === '*/*' || (range.endsWith('/*') && media.startsWith(range.slice(0, -1)));
  if (!media || !declared.some(covers)) throw new Error(`contract: ${where} as ${media || 'no content type'}, documented as ${declared.join(', ')}`);
  if (!media.includes('json') || !declared.includes(media)) return;
  const key = `${method} ${op.template} ${answer.status} ${media}`;
  let validate = contract.validators.get(key);
  if (!validate) {
    validate = contract.ajv.compile(inline(documented.content[media].schema ?? {}, contract.components) as object);
    contract.validators.set(key, validate);
  }
  if (!validate(answer.body)) {
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    throw new Error(`contract: ${where} with a body that breaks its schema: ${errors.join('; ')}\n${answer.text.slice(0, 500)}`);
  }
}
