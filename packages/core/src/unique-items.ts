// `uniqueItems` in linear time. Ajv's own compares items pairwise with a deep equality unless
// `items` declares only scalar types: an array of 40,000 small arrays (349 KB) took 10 s, and
// even 5 objects of a 1 MB payload 149 ms (each comparison lists both objects' keys). This one
// writes each item once in a canonical form (object keys sorted) and looks it up in a map.
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';

/** Replaces Ajv's `uniqueItems` in `ajv` with the linear check; same meaning, same error. */
export function useLinearUniqueItems(ajv: Ajv2020): void {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}

/** The keyword's check, as Ajv calls it; the failure in `.errors` (Ajv's way for a function keyword). */
function uniqueItems(schema: boolean, data: unknown[]): boolean {
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (const [i, item] of data.entries()) {
    const key = canonical(item);
    const j = seen.get(key);
    if (j !== undefined) {
      uniqueItems.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
}
uniqueItems.errors = undefined as Partial<ErrorObject>[] | undefined;

/**
 * A value written so that two JSON values are equal as uniqueItems means it (object keys in any
 * order, 1 and 1.0 one number) exactly when their forms are: keys sorted, every string and key
 * prefixed with its length and every number ended, so no two values run together into a third.
 * The payload nests at most 128 levels (MAX_JSON_DEPTH): the recursion is bounded.
 */
export function canonical(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value.length}:${value}`;
    case 'number':
      return `n${value};`;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      break;
  }
  if (value === null || typeof value !== 'object') return 'z';
  let form = '';
  if (Array.isArray(value)) {
    for (const item of value) form += canonical(item);
    return `[${form}]`;
  }
  for (const key of Object.keys(value).sort()) form += `${key.length}:${key}${canonical((value as Record<string, unknown>)[key])}`;
  return `{${form}}`;
}
