import type { JobLeaseRepo } from '../ports/job-lease-port.ts';
import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';

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
      const doc = await this.#conn.jobLeases.findOneAndUpdate(
        // Free, this holder's, or held past what this holder would set (see the SQLite adapter).
        { _id: name, $or: [{ leaseUntil: { $lte: now } }, { holder }, { leaseUntil: { $gt: until } }] },
        { $set: { holder, leaseUntil: until } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc?.holder === holder;
    } catch (err) {
      if (isDuplicateKey(err, '_id_')) return false;
      throw err;
    }
  }
}
