import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';

/** Named job leases in MongoDB: one document per job, taken with one conditional upsert. */
export class MongoJobLeaseRepo implements JobLeaseRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async take(name: string, holder: string, now: number, until: number): Promise<boolean> {
    try {
      // Matches when free (expired), already this holder's, or held over a lease past what this
      // holder sets (a clock that ran ahead: see the port); otherwise the upsert collides with
      // the holder's document on _id, which means someone else holds it.
      const q = P.jobLease(name, holder, now, until);
      const doc = await this.#conn.jobLeases.findOneAndUpdate(
        q.filter,
        { $set: { holder, leaseUntil: until } },
        { ...q.options, upsert: true, returnDocument: 'after' },
      );
      return doc?.holder === holder;
    } catch (err) {
      if (isDuplicateKey(err, '_id_')) return false;
      throw err;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    // The primary's acknowledgement alone (RELEASED_BY_PRIMARY): rolled back, it only makes the next holder wait for the expiry.
    const q = P.jobLeaseRelease(name, holder);
    await this.#conn.jobLeases.updateOne(q.filter, { $set: { leaseUntil: 0 } }, q.options);
  }
}
