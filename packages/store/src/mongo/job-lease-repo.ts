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
      // Matches when free (expired) or already this holder's; otherwise the upsert collides
      // with the holder's document on _id, which means someone else holds it.
      // Free, this holder's, or held past what this holder would set (see the SQLite adapter).
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
}
