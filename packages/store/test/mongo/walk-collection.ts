import { Query } from 'mingo';

// The `endpoint_walks` collection for walk tests without a server: one endpoint's walk document,
// the filters of the driver calls walkBatch makes matched as MongoDB matches them. mingo (a
// maintained implementation of MongoDB's query language) rather than an equality check, so that
// a filter's MongoDB meaning is what a test sees: `{ field: null }` matching an absent field and
// an array holding a null alike, `$type` and `$not`.

type Doc = Record<string, unknown>;
type Update = { $set?: Doc; $inc?: Record<string, number> };

/** Whether MongoDB would match a document with `filter`: the filter compiled once, for a collection's many documents. */
export function matcher(filter: Doc): (doc: Doc) => boolean {
  const query = new Query(filter);
  return (doc) => query.test(doc);
}

/** Whether MongoDB would match `doc` with `filter`. */
export const matches = (doc: Doc, filter: Doc): boolean => matcher(filter)(doc);

/** A stand-in for `conn.endpointWalks` holding `doc` (null: no walk). */
export class WalkCollection {
  /** updateOne's update documents, in order. */
  readonly writes: Update[] = [];
  /** deleteOne's filters, in order. */
  readonly deletes: Doc[] = [];

  doc: Doc | null;

  constructor(doc: Doc | null) {
    this.doc = doc;
  }

  readonly findOneAndUpdate = async (filter: Doc, update: Update): Promise<Doc | null> => {
    if (this.doc === null || !matches(this.doc, filter)) return null;
    this.#apply(update);
    return { ...this.doc };
  };

  readonly updateOne = async (filter: Doc, update: Update): Promise<void> => {
    this.writes.push(update);
    if (this.doc !== null && matches(this.doc, filter)) this.#apply(update);
  };

  readonly deleteOne = async (filter: Doc): Promise<void> => {
    this.deletes.push(filter);
    if (this.doc !== null && matches(this.doc, filter)) this.doc = null;
  };

  #apply(update: Update): void {
    const doc = this.doc!;
    Object.assign(doc, update.$set);
    for (const [field, by] of Object.entries(update.$inc ?? {})) doc[field] = Number(doc[field] ?? 0) + by;
  }
}
