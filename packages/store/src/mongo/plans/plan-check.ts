import { isDeepStrictEqual } from 'node:util';
import type { Document, IndexDescription } from 'mongodb';
import type { PlanSpec, Sent } from './plan.ts';

// The shape check of a plan against its declared index, without a server: the rule a database
// engineer applies by eye (equality, then sort, then range: "ESR"), made mechanical.
// - The index exists on the plan's collection (`_id_` always does).
// - Every part of its partial filter is implied by the query (else the server cannot use it),
//   as the server's own rule (expression_algo.cpp isSubsetOf) proves it: a comparison implies a
//   comparison, `$exists: true` and `$in`, never a `$type`, which the query must state itself.
// - The equality fields that are keys form a prefix of the keys, in any order.
// - The sort follows that prefix key by key (all in the index's direction, or all reversed),
//   so the server never sorts in memory.
// - Range fields are keys after those.
// - Any other filter field either repeats the partial filter exactly (the index holds only
//   such documents) or is a declared residual (tested on the fetched document, with why).
// It is deliberately strict: a shape it cannot read is an error, not a pass.

const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);

type Kind = 'equality' | 'range' | 'other';

function kindOf(condition: unknown): Kind {
  if (condition === null || typeof condition !== 'object' || condition instanceof Date) return 'equality';
  // An equality or a range may carry the partial filter's `$type` beside it (indexes.ts dueWhere).
  const bounds = Object.keys(condition).filter((op) => op !== '$type');
  if (bounds.length === 1 && (bounds[0] === '$eq' || bounds[0] === '$in')) return 'equality';
  if (bounds.length > 0 && bounds.every((op) => RANGE_OPS.has(op))) return 'range';
  return 'other';
}

/**
 * Whether `condition` is a `$type` alone whose index bounds are exact: numbers only (the server
 * fetches and re-checks a string's range, which symbols share).
 */
function exactTypeBounds(condition: unknown): boolean {
  if (condition === null || typeof condition !== 'object') return false;
  const ops = Object.entries(condition as Document);
  return ops.length === 1 && ops[0]![0] === '$type' && ops[0]![1] === 'number';
}

/** Whether a query's condition on a field implies the partial filter's condition on it. */
export function implies(condition: unknown, required: unknown): boolean {
  if (isDeepStrictEqual(condition, required)) return true;
  const values = equalityValues(condition);
  if (required !== null && typeof required === 'object' && !(required instanceof Date)) {
    const [op, arg] = Object.entries(required as Document)[0] ?? [];
    if (Object.keys(required).length !== 1) return false;
    // A condition that states the same `$type` beside its range repeats it literally.
    if (op === '$type' && condition !== null && typeof condition === 'object' && (condition as Document)['$type'] === arg) return true;
    if (op === '$in' && Array.isArray(arg) && values !== undefined) return values.every((v) => arg.some((a) => isDeepStrictEqual(a, v)));
    // The server proves no `$type` from a comparison (expression_algo's isSubsetOf has no rule
    // for it): an equality or a range beside a `$type` partial filter must state the `$type`
    // too (above), or the index cannot serve the query.
    if (op === '$type') return false;
    if (op === '$exists' && arg === true) return values?.every((v) => v !== null) ?? false;
    return false;
  }
  return values !== undefined && values.length === 1 && isDeepStrictEqual(values[0], required);
}

/** The values an equality condition admits, or undefined when it is not one. */
function equalityValues(condition: unknown): unknown[] | undefined {
  if (kindOf(condition) !== 'equality') return undefined;
  if (condition !== null && typeof condition === 'object' && !(condition instanceof Date)) {
    const [[op, arg]] = Object.entries(condition as Document).filter(([key]) => key !== '$type') as [[string, unknown]];
    return op === '$in' ? (arg as unknown[]) : [arg];
  }
  return [condition];
}

/** What is wrong with `sent` against `indexes` (every index of the store, by collection); empty when nothing. */
// biome-ignore lint/suspicious/noExplicitAny: any plan's spec.
export function checkPlan(sent: Sent, spec: PlanSpec<any>, indexes: Readonly<Record<string, readonly IndexDescription[]>>): string[] {
  const errors: string[] = [];
  const fail = (why: string) => errors.push(`${sent.name}: ${why}`);
  const index: IndexDescription | undefined =
    spec.index === '_id_' ? { key: { _id: 1 }, name: '_id_' } : indexes[spec.collection]?.find((i) => i.name === spec.index);
  if (index === undefined) {
    fail(`no index ${spec.index} on ${spec.collection}`);
    return errors;
  }
  if (sent.pipeline !== undefined) {
    if (!isDeepStrictEqual(sent.pipeline[0], { $match: sent.filter })) fail("the pipeline does not start with the plan's $match");
    if (sent.sort !== undefined && !isDeepStrictEqual(sent.pipeline[1], { $sort: sent.sort })) fail("the pipeline's second stage is not the plan's $sort");
  }
  const keys = Object.entries(index.key as Record<string, unknown>).map(([field, dir]) => ({ field, dir }));
  if (keys.some((k) => k.dir !== 1 && k.dir !== -1)) fail(`index ${index.name} has a key that is not ascending or descending`);
  const partial = (index.partialFilterExpression ?? {}) as Document;
  const residual = spec.residual ?? {};
  const filter = sent.filter;

  for (const [field, required] of Object.entries(partial)) {
    if (!(field in filter) || !implies(filter[field], required))
      fail(`does not repeat ${index.name}'s partial filter on ${field} (${JSON.stringify(required)})`);
  }

  const isKey = (field: string) => keys.some((k) => k.field === field);
  const equality = new Set(Object.keys(filter).filter((f) => !f.startsWith('$') && isKey(f) && kindOf(filter[f]) === 'equality'));
  let at = 0;
  while (at < keys.length && equality.has(keys[at]!.field)) {
    equality.delete(keys[at]!.field);
    at += 1;
  }

  if (sent.sort !== undefined) {
    const sortKeys = Object.entries(sent.sort);
    let direction: number | undefined;
    for (const [field, dir] of sortKeys) {
      const key = keys[at];
      if (key === undefined || key.field !== field) {
        fail(`sort on ${field} does not follow the equality prefix of ${index.name}: an in-memory sort`);
        break;
      }
      const same = key.dir === dir ? 1 : -1;
      if (direction !== undefined && direction !== same) fail(`sort on ${field} mixes directions against ${index.name}`);
      direction = same;
      at += 1;
    }
  }

  // An equality on a key the sort walks in order (a skip scan's) bounds it without reordering.
  for (const field of equality) {
    if (sent.sort?.[field] === undefined) fail(`equality on ${field} is not in ${index.name}'s leading keys (${keys.map((k) => k.field).join(', ')})`);
  }

  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$')) {
      if (!(field in residual)) fail(`${field} is not declared residual`);
      continue;
    }
    const kind = kindOf(condition);
    const keyAt = keys.findIndex((k) => k.field === field);
    if (keyAt >= 0 && kind === 'range' && keyAt < at && !sent.sort?.[field]) fail(`range on ${field} inside ${index.name}'s equality prefix`);
    if (keyAt >= 0 && kind !== 'other') continue;
    if (field in partial && isDeepStrictEqual(condition, partial[field])) continue;
    if (!(field in residual)) fail(`${field} is neither a key of ${index.name}, its partial filter, nor declared residual`);
  }
  for (const field of Object.keys(residual)) {
    if (!(field in filter)) fail(`declares ${field} residual but does not filter on it`);
  }
  // A plan that examines no document (a count answered from the index) filters on its keys alone,
  // each an equality or a range: any other field or condition is tested on the document, a fetch
  // per key. (A partial filter's field repeated outside the key is dropped only from MongoDB 7.0
  // on, and the store accepts 6.0: it counts as a fetch too.)
  if (spec.maxExamined(1) === 0) {
    for (const field of Object.keys(filter)) {
      if (!isKey(field)) fail(`examines no document, yet filters on ${field}, not a key of ${index.name}`);
      else if (kindOf(filter[field]) === 'other' && !exactTypeBounds(filter[field])) {
        fail(`examines no document, yet tests ${field} in a way ${index.name}'s bounds cannot`);
      }
    }
  }
  return errors;
}
