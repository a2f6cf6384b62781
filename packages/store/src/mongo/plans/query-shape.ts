import type { Document } from 'mongodb';

// A query's shape: its fields and operators with every value left out, so two commands of one
// plan that a server could plan differently (a compare-and-set's extra condition, an `$or` of
// another branch, a sort, projection, hint or limit given or not) have different shapes, and two
// that differ only in values (ids, times, how many ids an `$in` lists, how many tenants an `$or`
// pages, a limit's number) have one. query-plans.test.ts explains each shape a plan was sent in,
// not only the first command of it.

/** Operators whose array is a list of sub-queries: their distinct shapes count, not their number or order. */
const CLAUSE_LISTS = new Set(['$or', '$and', '$nor']);

/** A value as such: a date, a regex, bytes, a BSON value (ObjectId, Long, Binary, Decimal128). */
function isScalar(value: object): boolean {
  return value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value) || '_bsontype' in value;
}

/**
 * The shape of `value` as a query has it: values become '?', documents keep their keys (sorted)
 * and operators. Inside `$expr` an aggregation expression's operands keep their field paths
 * (`'$a'`), since which fields it compares is its shape.
 */
export function shapeOf(value: unknown, inExpr = false): unknown {
  if (typeof value === 'string' && inExpr && value.startsWith('$')) return value;
  if (value === null || typeof value !== 'object' || isScalar(value)) return '?';
  // A value that is a list ($in's ids, an array equality): its length is data; an expression's operands are not.
  if (Array.isArray(value)) return inExpr ? value.map((v) => shapeOf(v, true)) : '[?]';
  // The driver hands a sort over as a Map (formatSort): its keys and directions, in order.
  if (value instanceof Map) return ordered(value);
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(
    entries.map(([key, inner]) => {
      if (CLAUSE_LISTS.has(key) && Array.isArray(inner)) {
        const distinct = [...new Set(inner.map((clause) => JSON.stringify(shapeOf(clause, inExpr))))].sort();
        return [key, distinct.map((s) => JSON.parse(s) as unknown)];
      }
      // A pipeline's $sort: its keys and directions, in order.
      if (key === '$sort') return [key, ordered(inner)];
      return [key, shapeOf(inner, inExpr || key === '$expr')];
    }),
  );
}

/** A sort or projection as sent: its keys and values in order (a Map's too), null when none. */
function ordered(spec: unknown): unknown {
  if (spec === undefined || spec === null) return null;
  if (spec instanceof Map) return [...spec.entries()].map(([k, v]) => [String(k), v]);
  if (typeof spec === 'object') return Object.entries(spec as Record<string, unknown>);
  return spec;
}

/**
 * The shape of a recorded command's query: its filter (a find's or count's, a findAndModify's
 * query, an update's or delete's `q`, an aggregate's pipeline) with the sort, projection, hint
 * and multi or upsert it was sent with, and whether it had a limit. A key for "the same query": its JSON text.
 */
export function commandShape(command: Document, commandName: string): string {
  const statement = commandName === 'update' ? command['updates']?.[0] : commandName === 'delete' ? command['deletes']?.[0] : undefined;
  const query = command['filter'] ?? command['query'] ?? statement?.['q'] ?? command['pipeline'];
  const pipeline = Array.isArray(query) ? query.map((stage: Document) => shapeOf(stage)) : undefined;
  return JSON.stringify({
    query: pipeline ?? shapeOf(query),
    sort: ordered(command['sort']),
    projection: ordered(command['projection'] ?? command['fields']),
    hint: command['hint'] ?? statement?.['hint'] ?? null,
    limit: (command['limit'] ?? statement?.['limit'] ?? 0) !== 0,
    multi: statement?.['multi'] ?? null,
    upsert: statement?.['upsert'] ?? command['upsert'] ?? null,
  });
}

/**
 * What query-plans.test.ts explains once: a plan (the command's comment), the command, the
 * collection it was sent to (a month's bucket apart) and the query's shape.
 */
export function explainedOnceKey(command: Document, commandName: string): string {
  return JSON.stringify([command['comment'], commandName, command[commandName], commandShape(command, commandName)]);
}
