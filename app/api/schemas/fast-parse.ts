/** A compiled check of a zod schema for the common open write bodies, falling back to zod for the rest. */
import { z } from 'zod';

/**
 * A compiled check of a zod schema for bodies that JSON.parse made, for the shapes the open write bodies
 * use (a loose object of strings with length bounds, JSON objects, optional and nullable): it answers
 * zod's own output for a body zod accepts in the common case, and `undefined` for everything else, which
 * the caller then hands to zod (the refusal and its details are always zod's). It never answers a body
 * zod would refuse. zod's parse of a case write was the largest part of validation on POST /cases.
 *
 * Same contract, held by test/contract/fast-parse.test.ts: a table and generated bodies, each parsed by
 * both, must give the same JSON (keys in the same order) or fall back.
 *
 * What it mirrors of zod's parse: the shape's keys first, in the shape's order, then the unknown keys in
 * the body's order, an own `__proto__` key dropped; a record (`z.record(z.string(), z.unknown())`) copied
 * key for key, which for a parsed JSON object is the same JSON, so it is kept as it came unless it holds
 * `__proto__` (zod drops it) or `constructor` (zod's plain-object test reads it): those fall back.
 * Returns undefined when the schema uses anything else, so the caller keeps zod alone.
 */
export function compileFastParse<S extends z.ZodType>(
  schema: S,
): ((body: Record<string, unknown>) => z.output<S> | undefined) | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  if (!(schema.def.catchall instanceof z.ZodUnknown) || (schema.def.checks ?? []).length > 0)
    return undefined;
  const fields: [string, Check][] = [];
  for (const [key, field] of Object.entries<z.ZodType>(schema.shape)) {
    const check = compileValue(field);
    if (check === undefined || key === '__proto__') return undefined;
    fields.push([key, check]);
  }
  const known = new Set(fields.map(([key]) => key));
  return (body) => {
    const out: Record<string, unknown> = {};
    for (const [key, check] of fields) {
      if (Object.hasOwn(body, key)) {
        const value = body[key];
        if (!check(value)) return undefined;
        out[key] = value;
      } else if (!check(undefined)) return undefined;
    }
    for (const key in body) {
      if (known.has(key) || key === '__proto__') continue;
      out[key] = body[key];
    }
    // The compiled checks accept only what the schema accepts, and `out` is built as zod builds its
    // output; the contract test holds the two to the same answers.
    return out as z.output<S>;
  };
}

/** True only when zod would accept the value and output it as it is (or as the same JSON). */
type Check = (value: unknown) => boolean;

function compileValue(schema: z.core.$ZodType): Check | undefined {
  if (schema instanceof z.ZodOptional) {
    const inner = compileValue(schema.unwrap());
    return inner && ((value) => value === undefined || inner(value));
  }
  if (schema instanceof z.ZodNullable) {
    const inner = compileValue(schema.unwrap());
    return inner && ((value) => value === null || inner(value));
  }
  if (schema instanceof z.ZodUnknown) return () => true;
  if (schema instanceof z.ZodString) {
    let min = 0;
    let max = Number.POSITIVE_INFINITY;
    for (const check of schema.def.checks ?? []) {
      const def = check._zod.def;
      if (def.check === 'min_length' && 'minimum' in def && typeof def.minimum === 'number')
        min = Math.max(min, def.minimum);
      else if (def.check === 'max_length' && 'maximum' in def && typeof def.maximum === 'number')
        max = Math.min(max, def.maximum);
      else return undefined;
    }
    return (value) => typeof value === 'string' && value.length >= min && value.length <= max;
  }
  if (schema instanceof z.ZodRecord) {
    const keyType = schema.def.keyType;
    if (!(keyType instanceof z.ZodString) || (keyType.def.checks ?? []).length > 0) return undefined;
    if (!(schema.def.valueType instanceof z.ZodUnknown)) return undefined;
    return isKeptRecord;
  }
  return undefined;
}

/** A JSON object zod's record passes through unchanged. */
function isKeptRecord(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, '__proto__') &&
    !Object.hasOwn(value, 'constructor')
  );
}
