// Compose's merge tags: `!reset` removes a value (also what a merge would take from the base), `!override` replaces it whole instead of merging.
import { defineMappingTag, defineScalarTag, defineSequenceTag, type TagDefinition } from 'js-yaml';
import { isObj, type Obj } from './shape.ts';

/** `!reset`, whatever it is written on (`!reset`, `!reset []`, `!reset {}`): the key is gone once merges are done */
export const reset: unique symbol = Symbol('!reset');

/** `!override <value>`: the value, taken as it is where a merge (extends, include) would combine it with the base's */
export class Override {
  constructor(readonly value: unknown) {}
}

/** a map key set as data: "__proto__" from YAML is a key like any other, never an object's prototype */
function put(map: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

const loadOnly = () => false;

/** the tags, for the YAML schema of compose files */
export const mergeTags: readonly TagDefinition[] = [
  defineScalarTag('!reset', { resolve: () => reset, identify: loadOnly }),
  defineSequenceTag('!reset', { create: () => null, addItem: () => undefined, finalize: () => reset, identify: loadOnly }),
  defineMappingTag('!reset', { create: () => null, addPair: () => '', has: () => false, keys: () => [], get: () => undefined, finalize: () => reset, identify: loadOnly }),
  defineScalarTag('!override', { resolve: (source) => new Override(source), identify: loadOnly }),
  defineSequenceTag('!override', { create: (): unknown[] => [], addItem: (list, item) => { list.push(item); }, finalize: (list) => new Override(list), identify: loadOnly }),
  defineMappingTag('!override', {
    create: (): Obj => ({}),
    addPair: (map, key, value) => { put(map, String(key), value); return ''; },
    has: (map, key) => Object.hasOwn(map, String(key)),
    keys: (done: Override) => Object.keys(done.value as Obj),
    get: (done: Override, key) => (done.value as Obj)[String(key)],
    finalize: (map) => new Override(map),
    identify: loadOnly,
  }),
];

/**
 * The document once merges are done, in place: `!reset` keys and list entries removed, `!override` values unwrapped. A
 * file without merges means the same: a `!reset` key is absent, an `!override` value is the value.
 */
export function settleTags(value: unknown): unknown {
  const v = value instanceof Override ? value.value : value;
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) {
      if (v[i] === reset) v.splice(i, 1);
      else if (v[i] !== null && typeof v[i] === 'object') v[i] = settleTags(v[i]);
    }
  } else if (isObj(v)) {
    for (const [k, item] of Object.entries(v)) {
      if (item === reset) delete v[k];
      else if (item !== null && typeof item === 'object') {
        const settled = settleTags(item);
        if (settled !== item) put(v, k, settled);
      }
    }
  }
  return v;
}
