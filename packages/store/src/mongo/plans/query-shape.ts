import type { Document } from 'mongodb';

// A query's shape: its fields and operators with every value left out, so two commands of one
// plan that a server could plan differently (a compare-and-set's extra condition, an `$or` of
// another branch, a sort or hint given or not) have different shapes, and two that differ only
// in values (ids, times, how many ids an `$in` lists, how many tenants an `$or` pages) have one.
// query-plans.test.ts explains each shape a plan was sent in, not only the first command of it.

/** Operators whose array is a list of sub-queries: their distinct shapes count, not their number or order. */
const CLAUSE_LISTS = new Set(['$or', '$and', '$nor']);

/** The shape of `value` as a query has it: values become '?', documents keep their keys (sorted) and operators. */
export function shapeOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return '?';
  // A value that is a list ($in's ids, an array equality): its length is data.
  if (Array.isArray(value)) return '[?]';
  // BSON values (ObjectId, Long, Binary, Decimal128) are values, not sub-documents.
  if ('_bsontype' in value) return '?';
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(
    entries.map(([key, inner]) => {
      if (CLAUSE_LISTS.has(key) && Array.isArray(inner)) {
        const distinct = [...new Set(inner.map((clause) => JSON.stringify(shapeOf(clause))))].sort();
        return [key, distinct.map((s) => JSON.parse(s) as unknown)];
      }
      return [key, shapeOf(inner)];
    }),
  );
}

/**
 * The shape of a recorded command's query: its filter (a find's or count's, a findAndModify's
 * query, an update's or delete's `q`, an aggregate's pipeline) with the sort, hint and
 * projection's fields it was sent with. A key for "the same query": its JSON text.
 */
export function commandShape(command: Document, commandName: string): string {
  const statement = commandName === 'update' ? command['updates']?.[0] : commandName === 'delete' ? command['deletes']?.[0] : undefined;
  const query = command['filter'] ?? command['query'] ?? statement?.['q'] ?? command['pipeline'];
  const pipeline = Array.isArray(query) ? query.map((stage: Document) => shapeOf(stage)) : undefined;
  return JSON.stringify({
    query: pipeline ?? shapeOf(query),
    sort: command['sort'] ?? null,
    hint: command['hint'] ?? statement?.['hint'] ?? null,
    multi: statement?.['multi'] ?? null,
    upsert: statement?.['upsert'] ?? command['upsert'] ?? null,
  });
}
