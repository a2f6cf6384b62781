import { COLLECTIONS } from '../connection.ts';
import { definePlans, planSpec } from './plan.ts';

// The queries of the monthly layout itself (month-buckets.ts): its list of months in `meta`, and
// the due entries of a month retention drops.

export const MONTHS_PLANS = definePlans('months', {
  /** A document of `meta` by id: the layout's version (`schema`). */
  meta: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['schema'],
  }),
  /** The list of months whose collections exist (one document). */
  list: planSpec({
    collection: COLLECTIONS.meta,
    index: '_id_',
    examines: '1: by _id',
    maxExamined: () => 1,
    build: (id: string) => ({ filter: { _id: id } }),
    example: ['months'],
  }),
  /**
   * A batch of one month's due entries (`<month>:<endpoint id>`, due-queue.ts): a range of _id,
   * so a dropped month's entries go without reading any other month's.
   */
  dueEntriesOfMonth: planSpec({
    collection: COLLECTIONS.dueEndpoints,
    index: '_id_',
    examines: "≤ limit: a range walk of _id over one month's entries (';' follows ':' in every collation of ASCII)",
    maxExamined: (n) => n + 1,
    build: (month: string) => ({ filter: { _id: { $gte: `${month}:`, $lt: `${month};` } }, sort: { _id: 1 } }),
    example: ['202611'],
  }),
  /** Due entries of every month before `month` (months dropped: written by a late noteDue), a range of _id. */
  dueEntriesBefore: planSpec({
    collection: COLLECTIONS.dueEndpoints,
    index: '_id_',
    examines: '≤ limit: a range walk of _id below the oldest kept month (normally empty)',
    maxExamined: (n) => n + 1,
    build: (month: string) => ({ filter: { _id: { $lt: `${month}:` } }, sort: { _id: 1 } }),
    example: ['202611'],
  }),
  /** Due entries by id (the batch just read), to delete them. */
  dueEntriesByIds: planSpec({
    collection: COLLECTIONS.dueEndpoints,
    index: '_id_',
    examines: '≤ ids: by _id',
    maxExamined: (n) => n,
    build: (ids: string[]) => ({ filter: { _id: { $in: ids } } }),
    example: [['202611:ep_1']],
  }),
});
