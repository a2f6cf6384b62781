// `uniqueItems` in linear time. Ajv's own compares items pairwise with a deep equality unless
// `items` declares only scalar types: an array of 40,000 small arrays (349 KB) took 10 s, and
// even 5 objects of a 1 MB payload 149 ms (each comparison lists both objects' keys). This one
// gives each distinct value of the payload a number (hash-consing: a value's form names its
// parts by their numbers), once per value per payload, and looks the items' numbers up: a schema
// that nests uniqueItems 126 levels deep costs no more than one level (writing each item's whole
// form at every level took 2.8–3.9 s on such a 1 MB payload).
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';

/** Replaces Ajv's `uniqueItems` in `ajv` with the linear check; same meaning, same error. */
export function useLinearUniqueItems(ajv: Ajv2020): void {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}

/** The numbers of one payload's values, for one validation of it (validated: forgetNumbering). */
const numbering = new WeakMap<object, ValueNumbers>();

/**
 * Forgets `payload`'s numbers once a validation of it has ended: numbers kept by identity would
 * outlive a change to the payload, and a later validation of it would compare what it was.
 */
export function forgetNumbering(payload: unknown): void {
  if (typeof payload === 'object' && payload !== null) numbering.delete(payload);
}

/** The keyword's check, as Ajv calls it; the failure in `.errors` (Ajv's way for a function keyword). */
function uniqueItems(schema: boolean, data: unknown[], _parent?: unknown, cxt?: DataValidationCxt): boolean {
  if (!schema) return true;
  const root = cxt?.rootData;
  const owner = typeof root === 'object' && root !== null ? root : data;
  let numbers = numbering.get(owner);
  if (numbers === undefined) numbering.set(owner, (numbers = new ValueNumbers()));
  const seen = new Map<number, number>();
  for (const [i, item] of data.entries()) {
    const n = numbers.of(item);
    const j = seen.get(n);
    if (j !== undefined) {
      uniqueItems.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(n, i);
  }
  return true;
}
uniqueItems.errors = undefined as Partial<ErrorObject>[] | undefined;

/**
 * Numbers for JSON values such that two values get one number exactly when they are equal as
 * uniqueItems means it (object keys in any order, 1 and 1.0 one number): a value's form is
 * written from its parts' numbers (keys sorted, every string and key prefixed with its length,
 * every number ended, so no two forms run together into a third) and numbered in a table; an
 * object or array is numbered once (kept by identity). The payload nests at most 128 levels
 * (MAX_JSON_DEPTH): the recursion is bounded.
 */
export class ValueNumbers {
  readonly #byForm = new Map<string, number>();
  readonly #byObject = new WeakMap<object, number>();

  of(value: unknown): number {
    if (typeof value === 'object' && value !== null) {
      const known = this.#byObject.get(value);
      if (known !== undefined) return known;
      const n = this.#number(this.#form(value));
      this.#byObject.set(value, n);
      return n;
    }
    return this.#number(scalarForm(value));
  }

  #form(value: object): string {
    if (Array.isArray(value)) return `[${value.map((item) => this.of(item)).join(',')}]`;
    let form = '{';
    for (const key of Object.keys(value).sort()) form += `${key.length}:${key}=${this.of((value as Record<string, unknown>)[key])},`;
    return `${form}}`;
  }

  #number(form: string): number {
    let n = this.#byForm.get(form);
    if (n === undefined) this.#byForm.set(form, (n = this.#byForm.size));
    return n;
  }
}

function scalarForm(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value.length}:${value}`;
    case 'number':
      return `n${value};`;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return 'z';
  }
}
