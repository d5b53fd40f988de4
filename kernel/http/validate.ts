// Ajv validators compiled once from TypeBox schemas: strict for bodies and config, coercing for params and query.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

export interface FieldError { path: string; message: string }
export type Check = (value: unknown) => FieldError[] | null;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: coerce ? 'array' : false, useDefaults: coerce });
  addFormats(ajv);
  return ajv;
}
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    const extra = e.keyword === 'additionalProperties' ? `/${(e.params as { additionalProperty: string }).additionalProperty}` : '';
    return { path: e.instancePath + missing + extra, message: extra ? 'is not allowed' : (e.message ?? 'is invalid') };
  });
}

/** compiled at first use: most routes of a running service are never called, and each compiled validator costs memory and boot time */
function compileWith(ajv: Ajv, schema: TSchema): Check {
  let validate: ReturnType<Ajv['compile']> | undefined;
  return (value) => {
    validate ??= ajv.compile(schema);
    return validate(value) ? null : toFieldErrors(validate.errors);
  };
}

/** body and config: types must match exactly. */
export const compileStrict = (schema: TSchema): Check => compileWith(strictAjv, schema);
/** the names of an object schema's properties that take a boolean (alone or beside other types) */
function booleanProperties(schema: TSchema): string[] {
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const takesBoolean = (s: TSchema): boolean => s.type === 'boolean' || (Array.isArray(s.type) && s.type.includes('boolean'))
    || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(takesBoolean);
  return Object.keys(props).filter((name) => takesBoolean(props[name]));
}

/**
 * params and query strings: "5" becomes 5, defaults are filled in. A boolean takes 1, 0, true and false, as a URL writes it
 * (Ajv alone coerces only "true" and "false"): ?deploy=1 as webhooks take ?async=1.
 */
export function compileCoercing(schema: TSchema): Check {
  const check = compileWith(coercingAjv, schema);
  const flags = booleanProperties(schema);
  if (!flags.length) return check;
  return (value) => {
    if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const name of flags) {
        if (record[name] === '1') record[name] = true;
        else if (record[name] === '0') record[name] = false;
      }
    }
    return check(value);
  };
}
