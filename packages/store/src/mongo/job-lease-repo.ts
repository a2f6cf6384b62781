import { type Document, Long, MongoWriteConcernError } from 'mongodb';
import type { JobLeaseRepo, LeaseTaken } from '../ports/job-lease-port.ts';
import type { MongoConnection } from './connection.ts';
import { isDuplicateKey } from './errors.ts';
import { OPERATIONS_PLANS as P } from './plans/operations.ts';
import { SERVER_NOW_MS } from './plans/plan.ts';
import { POINT_OP_MS } from './query.ts';

/**
 * Named job leases in MongoDB: one document per job, taken with one upsert whose pipeline decides, timed
 * by the server's clock (`$$NOW`; a router's on a sharded cluster: leaseTakeUpdate):
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
      // The lease's document, made when missing; the update takes it or leaves it as it was
      // (leaseTakeUpdate), and its holder afterwards says which.
      const q = P.jobLease(name);
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
      // Two first takes at once: the server retries an upsert by _id alone that collides; should one still come back, it was not taken.
      if (isDuplicateKey(err, '_id_')) return null;
      // Refused, the take is a no-op write, and w: majority still waits for the majority to catch
      // up: past maxTimeMS that is a write-concern error carrying the post-image. One naming
      // another holder is a refusal whatever becomes durable; one naming this holder may be rolled back, so it throws.
      if (err instanceof MongoWriteConcernError && heldByAnother(err.result, holder)) return null;
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
 * The take's update, a pipeline: the rule is by the server's clock (`$$NOW`, one value through
 * the whole command), and MongoDB refuses `$expr` in an upsert's filter. The lease is taken when
 * it is this holder's, run out (or never taken), or ends more than one lease past the end a take
 * now would set, "one lease" the holder's own length while its times add up (`leaseUntil =
 * takenAt + leaseMs`), else the taker's (an earlier release's take rewrites `holder` and
 * `leaseUntil` alone): a primary whose clock stepped back that far, or an earlier release's
 * holder whose clock ran ahead. Taken, its four fields are set; else each is set to itself (a
 * no-op write). All expressions of one `$set` read the document as it was. Values are
 * `$literal`: a holder id that began with `$` would otherwise be read as a field's path. On a
 * sharded cluster `$$NOW` is the router's (mongos sets it).
 */
export function leaseTakeUpdate(holder: string, leaseMs: number) {
  const held = { $literal: holder };
  const holderLeaseMs = { $cond: [{ $eq: ['$leaseUntil', { $add: ['$takenAt', '$leaseMs'] }] }, '$leaseMs', leaseMs] };
  const taken = {
    $or: [
      { $eq: ['$holder', held] },
      { $lte: [{ $ifNull: ['$leaseUntil', 0] }, SERVER_NOW_MS] },
      { $gt: ['$leaseUntil', { $add: [SERVER_NOW_MS, leaseMs, holderLeaseMs] }] },
    ],
  };
  const ifTaken = (value: unknown, field: string) => ({ $cond: [taken, value, field] });
  return [
    {
      $set: {
        holder: ifTaken(held, '$holder'),
        takenAt: ifTaken(SERVER_NOW_MS, '$takenAt'),
        leaseMs: ifTaken({ $literal: leaseMs }, '$leaseMs'),
        leaseUntil: ifTaken({ $add: [SERVER_NOW_MS, leaseMs] }, '$leaseUntil'),
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

/** Whether a findAndModify's reply holds a post-image whose holder is not `holder`. */
function heldByAnother(reply: Document, holder: string): boolean {
  const value = (reply as { value?: { holder?: unknown } | null }).value;
  return typeof value?.holder === 'string' && value.holder !== holder;
}
