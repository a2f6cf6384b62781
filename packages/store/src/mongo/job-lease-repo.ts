import { Long } from 'mongodb';
import type { JobLeaseRepo, LeaseTaken } from '../ports/job-lease-port.ts';
import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';
import { SERVER_NOW_MS } from './plans/plan.ts';
import { POINT_OP_MS } from './query.ts';

/**
 * Named job leases in MongoDB: one document per job, taken with one conditional upsert, timed
 * by the server's clock (`$$NOW`; a router's on a sharded cluster: plans/operations.ts):
 * replicas whose clocks disagree by more than a lease would each find the other's expired, and
 * both run the job (two retentions deleting at once).
 */
export class MongoJobLeaseRepo implements JobLeaseRepo {
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  async take(name: string, holder: string, now: number, until: number): Promise<LeaseTaken | null> {
    const leaseMs = until - now;
    if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new RangeError(`a job lease must end after it is taken (${now} → ${until})`);
    try {
      // Matches when free (run out), already this holder's, or ending too far ahead (the plan);
      // otherwise the upsert collides with the holder's document on _id: someone else holds it.
      const q = P.jobLease(name, holder, leaseMs);
      const doc = await this.#conn.jobLeases.findOneAndUpdate(q.filter, leaseTakeUpdate(holder, leaseMs), {
        ...q.options,
        upsert: true,
        returnDocument: 'after',
        projection: { holder: 1, takenAt: 1 },
        maxTimeMS: POINT_OP_MS,
      });
      if (doc === null || doc.holder !== holder) return null;
      // The post-image of this write alone: its takenAt is this take's $$NOW.
      return { at: serverMs(doc.takenAt) };
    } catch (err) {
      if (isDuplicateKey(err, '_id_')) return null;
      throw err;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    // The primary's acknowledgement alone (RELEASED_BY_PRIMARY): rolled back, it only makes the next holder wait for the expiry.
    const q = P.jobLeaseRelease(name, holder);
    await this.#conn.jobLeases.updateOne(q.filter, { $set: { leaseUntil: 0 } }, q.options);
  }
}

/**
 * The take's update, a pipeline so that the lease's times are the server's: taken at `$$NOW`
 * (one value through the whole command), ending its length later. The length is kept, so that
 * a taker judges "too far ahead" by the holder's own lease while the three add up. Values are
 * `$literal`: a holder id that began with `$` would otherwise be read as a field's path.
 */
export function leaseTakeUpdate(holder: string, leaseMs: number) {
  return [
    {
      $set: {
        holder: { $literal: holder },
        takenAt: SERVER_NOW_MS,
        leaseMs: { $literal: leaseMs },
        leaseUntil: { $add: [SERVER_NOW_MS, leaseMs] },
      },
    },
  ];
}

/**
 * A time the server wrote with `$toLong` as a number: a Long or a bigint too (a client opened
 * with `promoteLongs: false` or `useBigInt64`).
 * @throws Error for anything else: a lease held but not timed would renew for ever and never
 * let its job run.
 */
function serverMs(value: unknown): number {
  const ms = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : value instanceof Long ? value.toNumber() : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error(`a job lease taken without its server time (takenAt: ${String(value)})`);
  return ms;
}
