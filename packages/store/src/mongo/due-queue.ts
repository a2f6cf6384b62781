import { type Tenant, tenantKey } from '@wirehook/core';
import type { MongoConnection } from './connection.ts';
import type { Month } from './months.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';

// The due queue, in two levels above the deliveries' due index. `due_endpoints`: one document per
// endpoint and month (deliveries live in monthly collections, and an entry addresses one of them),
// `dueAt` a lower bound of the earliest `dueAt` among that endpoint's deliveries in that month's due
// index. `due_tenants`: one document per tenant, `dueAt` a lower bound of its entries' bounds. A
// sweep reads a page of tenants whose bound has come, a batch of each one's entries, then each
// entry's first deliveries (delivery-claim.ts): O(page) documents whatever the backlog; one
// endpoint's backlog takes its share, never the page, and one tenant's endpoints its share of
// the sweep, never the tenants behind it.
//
// Who writes it, and why no wake-up is lost:
// - Whoever makes a delivery due (a new message, a retry, a release, a resume, a lane's hand-over,
//   a recovery) calls noteDue AFTER its transaction commits: `$min` of the delivery's dueAt into
//   its entry, then — only when that lowered or made an entry — into its tenant's bound. A `$min`
//   that lowers nothing writes nothing (no oplog entry), and with a backlog the entry's bound is
//   already lower: neither level is a document every delivery writes. A send and a completion
//   wait for the entry only: their tenants go to the process's tenant writer (TenantWriter), one
//   bulk write in flight as a rule; this process's sweeps wait for it a second at most (and not
//   behind a write stalled that long), its stop for every write in flight.
// - A sweep reads each entry's first deliveries. An entry with deliveries due now it takes by
//   setting its bound a little ahead (compare-and-set on the value it read: other sweeps pass it
//   over), then moves the bound to what the deliveries say (compare-and-set on the value it set);
//   an entry whose bound was stale (nothing due now: leased or done since) it moves straight from
//   the value it read (compare-and-set), one write where a take and a move were two. Either way it
//   reads the first delivery again after the move: a delivery committed before its noteDue and
//   after the sweep's read is seen by that second read (committed before the $min, which comes
//   after the move or was a no-op against the value the move replaced), and the bound goes back
//   down to it. Last, it reads the tenant's lowest entry and
//   moves the tenant's bound there (settleTenant: down by `$min`; up only by compare-and-set on
//   the value it read, then the lowest entry read again and `$min`-ed in): every raise is
//   followed by its raiser's second read, and an entry lowered after that read has its tenant's
//   `$min` after it (noteDue's order), so the tenant's bound comes back to at most its entries'.
// - A process that dies between a commit and its noteDue (or between its two `$min`s: for a send
//   or a completion that span now follows its answer, and lasts through a failed tenants' write
//   until its retry) leaves a delivery under a bound too high: the healer (healDueQueue, every
//   STRANDED_PEEK_INTERVAL_MS) lowers the bounds of the endpoints at the head of the store-wide
//   due index, and their tenants', so it is served in due order at worst. So does a tenant past
//   the tenant writer's cap (UNWRITTEN_CAP tenants waiting: an outage, or writes stalled).

/** The bound of an endpoint with nothing in the due index (a number, so the index orders it last). */
export const DUE_NEVER = Number.MAX_SAFE_INTEGER;

/** A delivery that has just become due at `dueAt` (or earlier than before). */
export interface DueNote {
  orgId: string;
  env: Tenant['env'];
  endpointId: string;
  /** The month of the delivery's bucket (connection.ts, bucketMonthOf), whose collection the entry stands for. */
  month: Month;
  dueAt: number;
}

/** A due entry's `_id`: the month first, so a dropped month's entries are one range of `_id`. */
export function dueEntryId(month: Month, endpointId: string): string {
  return `${month}:${endpointId}`;
}

/**
 * Lowers each endpoint's bound to the earliest of `notes` for it (creating it if needed), in
 * one unordered bulk write, then their tenants' (`tenantsAlways`: whether or not an entry moved —
 * the healer's). Call after the transaction that made them due has committed.
 * `tenantsSoon`: answers once the entries are written, their tenants handed to the connection's
 * tenant writer (lowerTenantsSoon) — a send's answer or a completion's waits one round trip, not
 * two; a sweep of this process waits for that writer first (tenantsLowered), so it sees them.
 * Notes a failed call could not write are kept (up to UNWRITTEN_CAP entries, and as many tenants
 * in the tenant writer) and written by this connection's next call, so a brief outage (an
 * election) delays a bound; what is past a cap, or dies with the process, the healer covers.
 * @throws the write's error (its notes kept).
 */
export async function noteDue(
  conn: MongoConnection,
  notes: readonly DueNote[],
  options: { tenantsAlways?: boolean; tenantsSoon?: boolean } = {},
): Promise<void> {
  // A tenant write that failed is tried again with any call (the send that lowers nothing included);
  // a kick, not a wait: a promise a call on a write stalled for minutes would hold memory (helper 266).
  tenantWriters.get(conn)?.kick();
  const carried = unwritten.get(conn);
  unwritten.delete(conn);
  const earliest = earliestOf(carried === undefined ? notes : [...carried, ...notes]);
  if (earliest.size === 0) return;
  try {
    const entries = await conn.dueEndpoints.bulkWrite(
      [...earliest.values()].map((n) => {
        const q = P.dueEndpoint(dueEntryId(n.month, n.endpointId));
        return {
          updateOne: {
            filter: q.filter,
            update: { $min: { dueAt: n.dueAt }, $setOnInsert: { orgId: n.orgId, env: n.env, endpointId: n.endpointId, month: n.month } },
            upsert: true,
            hint: q.options.hint,
          },
        };
      }),
      { ordered: false, comment: P.dueEndpoint.planName },
    );
    // The tenants' bounds after their entries' (the sweep's order relies on it), and only when an
    // entry was lowered or made (or a failed call's notes are carried: its entries may have been).
    if (options.tenantsAlways === true || carried !== undefined || entries.modifiedCount + entries.upsertedCount > 0) {
      if (options.tenantsSoon === true) lowerTenantsSoon(conn, [...earliest.values()]);
      else await lowerTenants(conn, [...earliest.values()]);
    }
  } catch (err) {
    // Written again with the next call: a $min twice is the same as once. With what other calls
    // failing meanwhile left (they ran beside this one): merged, never one call's over another's.
    const meanwhile = unwritten.get(conn) ?? [];
    unwritten.set(conn, [...earliestOf([...meanwhile, ...earliest.values()]).values()].slice(0, UNWRITTEN_CAP));
    throw err;
  }
}

/** `$min` of each tenant's earliest of `notes` into its bound (creating it if needed), in one unordered bulk write. */
export async function lowerTenants(conn: MongoConnection, notes: readonly { orgId: string; env: Tenant['env']; dueAt: number }[]): Promise<void> {
  const earliest = earliestBy(notes, tenantKey);
  if (earliest.size === 0) return;
  await conn.dueTenants.bulkWrite(
    [...earliest].map(([key, n]) => {
      const q = P.dueTenant(key);
      return { updateOne: { filter: q.filter, update: lowerTenantTo(n, n.dueAt), upsert: true, hint: q.options.hint } };
    }),
    { ordered: false, comment: P.dueTenant.planName },
  );
}

/** A tenant's bound to lower: its key's earliest note. */
type TenantNote = { orgId: string; env: Tenant['env']; dueAt: number };

/** A batch of the tenant writer's: each tenant's earliest note, and its waiters' promise. */
interface TenantBatch {
  notes: Map<string, TenantNote>;
  written: Promise<void>;
  settle: () => void;
}

/**
 * One connection's tenant writer: the tenants' `$min`s of noteDue's `tenantsSoon` calls, each
 * handed over after its entries were written (the order the sweep relies on). One bulk write in
 * flight as a rule; those handed over meanwhile wait for the next, merged: a tenant noted by 50
 * sends meanwhile is one `$min` (its earliest), as late as one round trip — never merged into a
 * write already sent, which may have left before their entries were written. A write in flight
 * TENANT_WRITE_STALL_MS or longer (a half-open socket waits out TCP's keepalive: minutes) does not
 * hold the next: it goes beside it, up to TENANT_WRITES_IN_FLIGHT at once (`$min`s commute).
 */
class TenantWriter {
  #queued: TenantBatch | null = null;
  /** The writes in flight, the newest last. */
  readonly #writing: { batch: TenantBatch; began: number; carried: boolean }[] = [];
  /** Whether the last write failed (told once a streak). */
  #failing = false;
  /** Whether a note was dropped at the cap since the last write that succeeded (told once). */
  #capped = false;
  /** The next try of what a failure kept when nothing else comes to write it (an intake that receives no more sends). */
  #retry: NodeJS.Timeout | null = null;
  #retryMs = TENANT_RETRY_MIN_MS;
  #stopped = false;
  readonly #conn: MongoConnection;

  constructor(conn: MongoConnection) {
    this.#conn = conn;
  }

  add(notes: readonly TenantNote[]): void {
    this.#merge(notes);
    this.#maybeWrite();
  }

  /** Starts what is due to go (kept by a failure, or behind a stalled write), waiting for nothing. */
  kick(): void {
    this.#maybeWrite();
  }

  /**
   * Settles once what was handed over before the call is written, or its write failed (then kept
   * for the next): every write in flight and what is queued. Starts the write of what a failure
   * kept, or of what waits behind a stalled write. `stalledAfterMs` (a sweep's): not for the writes
   * in flight that long, nor for what is queued behind writes that all are.
   */
  written({ stalledAfterMs = Number.POSITIVE_INFINITY }: { stalledAfterMs?: number } = {}): Promise<void> {
    this.#maybeWrite();
    const now = performance.now();
    // A write in flight that long has stalled (a majority lagging, a socket half open): a sweep goes on
    // without it, and without what waits behind writes that have all stalled. A stop waits for every one.
    const live = this.#writing.filter((w) => now - w.began < stalledAfterMs);
    const waits = live.map((w) => w.batch.written);
    if (this.#queued !== null && (live.length > 0 || this.#writing.length === 0)) waits.push(this.#queued.written);
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => {});
  }

  /** No more tries of its own (the store is closing); notes handed over later are still written. */
  stop(): void {
    this.#stopped = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
  }

  /**
   * Sends what is queued when nothing is in flight, or beside writes that have all stalled — with
   * their tenants again (their entries are written; a $min twice is once), which a socket half
   * open would otherwise hold for minutes.
   */
  #maybeWrite(): void {
    const newest = this.#writing.at(-1);
    if (newest === undefined) {
      if (this.#queued !== null) void this.#write();
      return;
    }
    if (this.#writing.length >= TENANT_WRITES_IN_FLIGHT || performance.now() - newest.began < TENANT_WRITE_STALL_MS) return;
    // Nothing queued: the stalled writes' tenants go beside them once (not again at every kick).
    if (this.#queued === null && this.#writing.every((w) => w.carried)) return;
    for (const w of this.#writing) {
      w.carried = true;
      this.#merge([...w.batch.notes.values()], { quiet: true });
    }
    void this.#write();
  }

  /** Every batch's promise settles when its own write ends, written or not: no waiter outlives it. */
  async #write(): Promise<void> {
    for (let batch = this.#queued; batch !== null; batch = this.#queued) {
      this.#queued = null;
      const writing = { batch, began: performance.now(), carried: false };
      this.#writing.push(writing);
      const notes = [...batch.notes.values()];
      let again = true;
      try {
        await lowerTenants(this.#conn, notes);
        this.#failing = false;
        this.#capped = false;
        this.#retryMs = TENANT_RETRY_MIN_MS;
      } catch (err) {
        if (!this.#failing) {
          process.emitWarning(`wirehook: lowering due tenants' bounds: ${err instanceof Error ? err.message : String(err)} (kept, written with the next)`);
        }
        this.#failing = true;
        // Merged into what was handed over meanwhile, which goes now (its waiters wait for a write:
        // helper 262), or kept for the next hand-over, noteDue, wait or try of its own — no loop
        // against an outage. Of a bulk write whose operations the server refused one by one, only
        // those are kept (the rest were applied). A $min twice is once.
        again = this.#queued !== null;
        this.#merge(refusedOf(err, notes));
      } finally {
        this.#writing.splice(this.#writing.indexOf(writing), 1);
        batch.settle();
      }
      if (!again) {
        this.#tryLater();
        return;
      }
    }
  }

  /** A try of what a failure kept, TENANT_RETRY_MIN_MS later, doubling to TENANT_RETRY_MAX_MS while they fail. */
  #tryLater(): void {
    if (this.#stopped || this.#retry !== null || this.#queued === null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#maybeWrite();
    }, this.#retryMs);
    this.#retry.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, TENANT_RETRY_MAX_MS);
  }

  /** `quiet`: a stalled write's tenants carried again (still in that write: none lost at the cap, none to tell of). */
  #merge(notes: readonly TenantNote[], { quiet = false }: { quiet?: boolean } = {}): void {
    if (notes.length === 0) return;
    if (this.#queued === null) {
      let settle = () => {};
      const written = new Promise<void>((resolve) => (settle = resolve));
      this.#queued = { notes: new Map(), written, settle };
    }
    const queued = this.#queued.notes;
    for (const n of notes) {
      const key = tenantKey(n);
      const seen = queued.get(key);
      if (seen === undefined && queued.size >= UNWRITTEN_CAP) {
        // Past the cap (an outage, or writes stalled, with that many tenants noted): the healer lowers the rest.
        if (quiet) continue;
        if (!this.#capped) process.emitWarning(`wirehook: ${UNWRITTEN_CAP} tenants' due bounds waiting; the healer lowers the rest`);
        this.#capped = true;
        continue;
      }
      if (seen === undefined || n.dueAt < seen.dueAt) queued.set(key, { orgId: n.orgId, env: n.env, dueAt: n.dueAt });
    }
  }
}

/**
 * Of a failed bulk write's `notes`, those to keep: only the operations the server refused one by one
 * (a MongoBulkWriteError's writeErrors, by their operation's `_id`: the tenant's key) when that is
 * all it says — every one when the connection was lost, a primary stepped down (the driver wraps
 * either with no writeErrors) or a write concern was not met (applied, and maybe rolled back):
 * those say nothing of which applied, and a $min twice is once (helper 265).
 */
function refusedOf(err: unknown, notes: readonly TenantNote[]): TenantNote[] {
  const e = err as { writeErrors?: unknown; err?: unknown; result?: { getWriteConcernError?: () => unknown } } | null;
  type Refused = { index?: unknown; getOperation?: () => { q?: { _id?: unknown } } | undefined };
  const refused = e?.writeErrors === undefined ? [] : ([e.writeErrors].flat() as Refused[]);
  if (refused.length === 0 || e?.err !== undefined || e?.result?.getWriteConcernError?.() !== undefined) return [...notes];
  const byKey = new Map(notes.map((n) => [tenantKey(n), n]));
  const kept = refused.flatMap((w) => {
    const key = w.getOperation?.()?.q?._id;
    const n = typeof key === 'string' ? byKey.get(key) : typeof w.index === 'number' ? notes[w.index] : undefined;
    return n === undefined ? [] : [n];
  });
  return kept.length === refused.length ? kept : [...notes];
}

const tenantWriters = new WeakMap<MongoConnection, TenantWriter>();
const TENANT_RETRY_MIN_MS = 1_000;
const TENANT_RETRY_MAX_MS = 30_000;
/** How long a tenants' write may be in flight before the next goes beside it; a sweep waits no longer for one. */
export const TENANT_WRITE_STALL_MS = 1_000;
/** Tenants' writes in flight at most, stalled ones included. */
const TENANT_WRITES_IN_FLIGHT = 4;

/** The connection's tenant writer, made on first use. */
function writerOf(conn: MongoConnection): TenantWriter {
  let writer = tenantWriters.get(conn);
  if (writer === undefined) tenantWriters.set(conn, (writer = new TenantWriter(conn)));
  return writer;
}

/** Hands `notes`' tenants to the connection's tenant writer (TenantWriter); call once their entries are written. */
export function lowerTenantsSoon(conn: MongoConnection, notes: readonly TenantNote[]): void {
  writerOf(conn).add(notes);
}

/**
 * Settles once the tenants handed over before the call (lowerTenantsSoon) are written, or their
 * write failed (kept, written with the next): a sweep waits for it, so this process's sends are
 * in its tenants' bounds when it reads them — with `stalledAfterMs`, not for writes in flight that
 * long (TenantWriter.written); a stop waits for every write before closing the client.
 */
export function tenantsLowered(conn: MongoConnection, options: { stalledAfterMs?: number } = {}): Promise<void> {
  return tenantWriters.get(conn)?.written(options) ?? Promise.resolve();
}

/** Ends the tenant writer's own tries (a store's close, after its last wait: what is still kept the healer lowers). */
export function stopTenantWriter(conn: MongoConnection): void {
  // Made stopped if it has not been yet: a completion committed between the store's settle and its close makes none that retries.
  writerOf(conn).stop();
}

/** The update that lowers a tenant's bound to `dueAt` (an upsert makes it). */
export function lowerTenantTo(t: { orgId: string; env: Tenant['env'] }, dueAt: number) {
  return { $min: { dueAt }, $setOnInsert: { orgId: t.orgId, env: t.env } };
}

/** Each entry's earliest note of `notes`, by entry. */
function earliestOf(notes: readonly DueNote[]): Map<string, DueNote> {
  return earliestBy(notes, (n) => dueEntryId(n.month, n.endpointId));
}

/** The earliest (least `dueAt`) of `items` for each key `keyOf` gives. */
function earliestBy<T extends { dueAt: number }>(items: readonly T[], keyOf: (item: T) => string): Map<string, T> {
  const earliest = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const seen = earliest.get(key);
    if (seen === undefined || item.dueAt < seen.dueAt) earliest.set(key, item);
  }
  return earliest;
}

/** Notes a failed noteDue left, by connection. */
const unwritten = new WeakMap<MongoConnection, DueNote[]>();
/** Entries whose unwritten notes a connection keeps at most (one each: the earliest). */
const UNWRITTEN_CAP = 10_000;

/**
 * Moves the bound of `endpointId`'s entry for `month` from `from` (the value this sweep set when it took the endpoint,
 * or read it at, with its `seq`, when it did not take it) to `to` — up or down: its first entry's dueAt `first` (DUE_NEVER when none),
 * or later for an endpoint that is not active — then lowers it again to any entry earlier than `first` made due
 * meanwhile (a noteDue that ran before this move saw the sweep's value and lowered nothing).
 * @returns whether the bound was still `from` (moved, or `to` is `from`).
 */
export async function moveDue(
  conn: MongoConnection,
  t: { orgId: string; env: Tenant['env'] },
  endpointId: string,
  month: Month,
  from: number,
  to: number,
  first: number = to,
  seq?: number | null,
): Promise<boolean> {
  if (to === from) return true;
  const q = P.dueEndpoint(dueEntryId(month, endpointId), from, seq);
  const { modifiedCount } = await conn.dueEndpoints.updateOne(q.filter, { $set: { dueAt: to }, $inc: { seq: 1 } }, q.options);
  if (modifiedCount === 0) return false; // a noteDue lowered it meanwhile (or another sweep took it): its value stands
  const again = await firstDueOf(conn, t, endpointId, month);
  if (again !== null && again.dueAt < first) await noteDue(conn, [again]);
  return true;
}

/**
 * The next endpoint with open work in `month` after `after` in id order (one seek of that
 * month's deliveries_endpoint_due_queue), with its earliest entry as a note (a second seek, of
 * the same index). @returns null past the month's last endpoint.
 */
export async function nextEndpointFirstDue(conn: MongoConnection, month: Month, after: string): Promise<{ endpointId: string; note: DueNote | null } | null> {
  const q = P.nextEndpointWithWork(after);
  const [next] = await conn
    .bucket(month)
    .deliveries.find(q.filter, { ...q.options, projection: { _id: 0, endpointId: 1, orgId: 1, env: 1 } })
    .limit(1)
    .toArray();
  if (next === undefined) return null;
  return { endpointId: next.endpointId, note: await firstDueOf(conn, next, next.endpointId, month) };
}

/** The endpoint's earliest entry in `month`'s due index as a note (one seek), or null when it has none there. */
export async function firstDueOf(conn: MongoConnection, t: { orgId: string; env: Tenant['env'] }, endpointId: string, month: Month): Promise<DueNote | null> {
  const f = P.dueOfEndpoint(endpointId);
  const [first] = await conn
    .bucket(month)
    .deliveries.find(f.filter, { ...f.options, projection: { _id: 0, dueAt: 1 } })
    .limit(1)
    .toArray();
  return first === undefined ? null : { orgId: t.orgId, env: t.env, endpointId, month, dueAt: first.dueAt as number };
}

/**
 * The endpoint's earliest entry in each month that has one (one seek per month): what a
 * resume or an endpoint made active tells the due queue.
 */
export async function firstDueOfEachMonth(conn: MongoConnection, t: { orgId: string; env: Tenant['env'] }, endpointId: string): Promise<DueNote[]> {
  const months = await conn.months();
  const firsts = await Promise.all(months.map((month) => firstDueOf(conn, t, endpointId, month)));
  return firsts.filter((n) => n !== null);
}
