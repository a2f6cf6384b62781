import { tenantKey, within, type DeliveryId, type EndpointId, type Environment, type MessageId, type OrgId, type Tenant } from '@wirehook/core';
import type { Collection, Document, Filter, FindOptions, WithId } from 'mongodb';
import type { DeliveryJob, DueDelivery } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import {
  DUE_NEVER,
  type DueNote,
  lowerTenants,
  lowerTenantTo,
  moveDue,
  nextEndpointFirstDue,
  noteDue,
  TENANT_WRITE_STALL_MS,
  tenantsLowered,
} from './due-queue.ts';
import { repairMessageStatuses } from './message-status.ts';
import { ensureMonths } from './month-buckets.ts';
import type { Month } from './months.ts';
import { toDelivery, toJobEndpoint, validSecrets } from './mappers.ts';
import { MESSAGES_PLANS as MESSAGE_PLANS } from './plans/messages.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { ON_PRIMARY } from './plans/plan.ts';
import { repairStranded, STRANDED_PEEK, STRANDED_PEEK_INTERVAL_MS, type Stranded } from './stranded.ts';

// The sweep and the claim. A delivery is claimable when it is open, not held, not waiting in
// its ordered lane, its `dueAt` has come (a lease moves dueAt to the lease's end, so a leased
// delivery is not due by its key), and its endpoint (of the same tenant) is active.

/** Tenants one page of a sweep reads from the due queue's tenant level. */
export const DUE_TENANTS_PAGE = 64;
/** Endpoints one batch of a tenant's reads at most; a call reads at most this many a page of its limit (its budget). */
export const DUE_ENDPOINTS_PAGE = 64;
/** Pages one call reads beyond what its limit needs (past bounds that were stale). */
const DUE_EXTRA_PAGES = 8;
/** Pages of tenants more a call reads for the tenants it skips (64 a page): at most 1,024 passed over. */
const SKIPPED_PAGES = 16;
/** A tenant's first batch: its share and this many more (room for stale bounds); each batch after it twice the one before. */
const BATCH_SPARE = 7;
/**
 * How long a sweep holds the endpoints it reads (their bound set this far ahead by
 * compare-and-set, then moved to what it read): dispatchers sweeping at the same moment read
 * disjoint ones, and a sweep that dies leaves them to others this much later. Once moved, an
 * endpoint whose deliveries were handed out is back at their time: a sweep a few ms later may
 * list the same ones (the claim's compare-and-set decides; the cost is a failed claim, not a
 * double send).
 */
export const DUE_PAGE_LEASE_MS = 10_000;

interface Entry {
  _id: string;
  endpointId: string;
  dueAt: number;
}

/** An entry a sweep gives out, with its tenant (its endpoint's due entry carries it). */
type GivenEntry = Entry & { tenant: Tenant };

/** A due entry: one endpoint's deliveries in one month (due-queue.ts). */
interface Queued {
  _id: string;
  orgId: string;
  env: Tenant['env'];
  endpointId: string;
  month: Month;
  dueAt: number;
  seq?: number;
}

/** A tenant's bound (due-queue.ts): `_id` its tenantKey. */
interface QueuedTenant {
  _id: string;
  orgId: string;
  env: Tenant['env'];
  dueAt: number;
}

/** A tenant this call reads, and where its next batch of entries starts. */
interface ReadTenant {
  queued: QueuedTenant;
  after: { dueAt: number; _id: string } | undefined;
  batch: number;
}

/**
 * Ids of claimable deliveries, at most `perEndpoint` of one endpoint (sharePerEndpoint: each of
 * its months' entries is read for that share), at most `perTenant` of one tenant
 * (sharePerTenant) and none of a tenant in `skip`, oldest due first among what the tenants read
 * gave, in three levels (due-queue.ts). Tenants come in pages by their bound (a lower bound of
 * their entries'); each one's entries are read in batches, oldest bound first — its share plus
 * BATCH_SPARE, then twice as many each batch — while it has fewer than `perTenant` deliveries
 * found and the last batch was full; each entry taken is read (its first delivery), taken for
 * the sweep by compare-and-set when that is due (dispatchers sweeping at once take different
 * entries), read again (its first `perEndpoint + 1` deliveries) and its bound moved to what was
 * read (takeAndRead: a stale one's straight from the value and count read); last the tenant's bound is moved to its
 * lowest entry's (settleTenant). Within a batch, entries are taken while the tenant is below its
 * share, in two rounds (an entry whose bound was stale — its delivery leased since — leaves its
 * place to the batch's next entries); the rest are passed over untouched (no write: their bounds,
 * and so their order, stay); a round takes the oldest bounds of the page's batches, no more than
 * the room the limit has left (and a batch's worth of stale ones more). A skipped tenant is
 * passed over with no write. Pages go on until `limit` deliveries are found, or the queue ends,
 * or the call has read its budget of entries (⌈limit / 64⌉ + 8 pages' worth: the batches under
 * way when it is spent are finished); at most ⌈limit / 64⌉ + 8 pages, and one more for each 64
 * tenants skipped, up to 16 (1,024 due_tenants entries more). Examines ≤ pages × (2 ×
 * DUE_TENANTS_PAGE + 3 a tenant) + budget + DUE_TENANTS_PAGE × DUE_ENDPOINTS_PAGE entries, and
 * perEndpoint + 5 documents an entry (≤ limit + 2 × DUE_ENDPOINTS_PAGE a round), whatever
 * the backlog. A read: two calls at one `now` with nothing changed between give the same answer.
 */
export async function dueDeliveries(
  conn: MongoConnection,
  now: number,
  limit: number,
  perEndpoint: number,
  perTenant = limit,
  skip: readonly Tenant[] = [],
): Promise<DueDelivery[]> {
  // This process's sends whose tenants are still being lowered (noteDue's tenantsSoon): in their bounds before they are
  // read — for a moment at most, and not at all behind a write stalled that long (this sweep's reads do not depend on it).
  const lowered = tenantsLowered(conn, { stalledAfterMs: TENANT_WRITE_STALL_MS });
  await within(lowered, TENANT_WRITE_STALL_MS, () => new Error('tenants still being lowered')).catch(() => {});
  const due: GivenEntry[] = [];
  /** Tenants this call has read, or passed over (a skipped one's share is used up already). */
  const visited = new Set<string>(skip.map(tenantKey));
  /** Deliveries given in this call, by tenant. */
  const givenOfTenant = new Map<string, number>();
  const pages = Math.ceil(limit / DUE_ENDPOINTS_PAGE) + DUE_EXTRA_PAGES;
  // And a page of tenants for each DUE_TENANTS_PAGE skipped (tenants at their share, or held for an overload: the
  // dispatcher's TenantHolds), read and passed over — many held before the others would use the pages up —, at most
  // SKIPPED_PAGES more: no entry of theirs is read, so the entries' budget stays the pages' own.
  const maxPages = pages + Math.min(SKIPPED_PAGES, Math.ceil(skip.length / DUE_TENANTS_PAGE));
  /** Entries the call may still read (what it read is charged, not what it asked for: most tenants have one or two). */
  let budget = pages * DUE_ENDPOINTS_PAGE;
  // What the shares keep of what was given: derived again only when more was given (`due` only grows).
  let keptOf: { given: number; rows: GivenEntry[] } = { given: 0, rows: [] };
  const kept = () => {
    if (keptOf.given !== due.length) keptOf = { given: due.length, rows: sharePerTenant(sharePerEndpoint(due.sort(byDue), perEndpoint), perTenant) };
    return keptOf.rows;
  };
  /** Entries taken in this call: one whose bound a take moved to a time still due is read again by the tenant's next batch. */
  const takenEntries = new Set<string>();
  let last: QueuedTenant | undefined;
  // Until the limit is found: no take is made past it (the room), so a page read then would only be settled.
  for (let page = 0; page < maxPages && budget > 0 && kept().length < limit; page++) {
    const tenants = await readTenantPage(conn, now, last);
    if (tenants.length === 0) break;
    last = tenants[tenants.length - 1];
    const fresh = tenants.filter((t) => !visited.has(t._id));
    for (const t of fresh) visited.add(t._id);
    // Each tenant's first batch: its part of the room the limit has left (and BATCH_SPARE), doubling after while short
    // — not 64 each: 64 tenants' first batches were 4,096 entries read for a limit of 100 (helper 261).
    const room = Math.max(0, limit - kept().length);
    const firstBatch = Math.min(DUE_ENDPOINTS_PAGE, Math.min(perTenant, Math.ceil(room / Math.max(1, fresh.length))) + BATCH_SPARE);
    let reading: ReadTenant[] = fresh.map((queued) => ({ queued, after: undefined, batch: firstBatch }));
    /** Tenants whose bound may have moved: an entry of theirs taken, or a first batch that found none due (a stale bound). */
    const toSettle = new Set<string>();
    for (let first = true; reading.length > 0 && (first || (budget > 0 && kept().length < limit)); first = false) {
      const batches = await Promise.all(reading.map((r) => readTenantBatch(conn, r.queued, now, r.after, r.batch)));
      budget -= batches.reduce((n, b) => n + b.length, 0);
      reading.forEach((r, i) => batches[i]!.length === 0 && r.after === undefined && toSettle.add(r.queued._id));
      // Oldest bound first across the tenants, and no more entries taken than the limit has room for (an entry
      // gives at least one, when its bound is not stale): 64 tenants' batches of 64 are not 4,096 takes (helper 257).
      let pending = batches
        .flat()
        .filter((q) => !takenEntries.has(q._id))
        .sort(byDue);
      // What the shares keep, not what was given: one endpoint's perEndpoint against a tenant's share of 1 is one (helper 259).
      const roomLeft = () => Math.max(0, limit - kept().length);
      // Two rounds at most: what the tenants' shares leave room for, then — for a tenant still short
      // because entries it won gave nothing (stale bounds: their deliveries leased since) — all of its
      // other entries of the batch (more writes, whose moves set those bounds right; not a round an
      // entry: helper 254 counted 65 for one delivery). An entry another dispatcher won is no reason
      // for the second: it is that one's to read (helper 255).
      let take = withinShares(pending, givenOfTenant, perTenant).slice(0, roomLeft());
      for (let round = 0; round < 2 && take.length > 0; round++) {
        for (const q of take) {
          takenEntries.add(q._id);
          toSettle.add(tenantKey(q));
        }
        const { given, emptyOf } = await takeAndRead(conn, now, take, perEndpoint);
        for (const g of given) givenOfTenant.set(tenantKey(g.tenant), (givenOfTenant.get(tenantKey(g.tenant)) ?? 0) + 1);
        due.push(...given);
        pending = pending.filter((q) => !take.includes(q));
        take = withinShares(
          pending.filter((q) => emptyOf.has(tenantKey(q))),
          givenOfTenant,
          perTenant,
          true,
          // Stale bounds set right in bulk, but no more than a batch's worth a round, whatever the tenants.
        ).slice(0, Math.max(roomLeft(), DUE_ENDPOINTS_PAGE));
      }
      // A tenant still short whose batch was full has more entries: its next batch, twice as large.
      reading = reading.flatMap((r, i) => {
        const batch = batches[i]!;
        const end = batch[batch.length - 1];
        if (batch.length < r.batch || end === undefined || (givenOfTenant.get(r.queued._id) ?? 0) >= perTenant) return [];
        return [{ queued: r.queued, after: { dueAt: end.dueAt, _id: end._id }, batch: Math.min(DUE_ENDPOINTS_PAGE, r.batch * 2) }];
      });
    }
    // The others' bounds stand: their entries untouched, a bound at most the lowest of them still is.
    await Promise.all(fresh.filter((t) => toSettle.has(t._id)).map((t) => settleTenant(conn, t)));
    if (tenants.length < DUE_TENANTS_PAGE) break;
  }
  return kept()
    .slice(0, limit)
    .map((d) => ({ id: d._id as DeliveryId, endpointId: d.endpointId as EndpointId, tenant: d.tenant }));
}

/**
 * Moves the bound of tenant `t` to its lowest entry's, or deletes it when it has none. Down (or
 * the same) by `$min`: that also mends a bound another sweep raised meanwhile past an entry this
 * one moved back. Up, or away, only by compare-and-set on the value this sweep read (when it
 * changed meanwhile, `$min` instead), and then the lowest entry is read again and `$min`-ed in:
 * an entry lowered after the first read — a retry noted while this settled, whose own tenant
 * `$min` met the value before the raise and lowered nothing — is below what this set (helper
 * 256). An entry lowered after that second read has its tenant's `$min` after it (noteDue's
 * order). No hold: dispatchers sweeping one tenant at once each read its entries, taken apart
 * by their own compare-and-set. A read and an operation; a raise, a read and an operation more.
 */
async function settleTenant(conn: MongoConnection, t: QueuedTenant): Promise<void> {
  const lowest = async (): Promise<number | undefined> => {
    const f = P.tenantDueEndpoints(t, DUE_NEVER);
    const [first] = await conn.dueEndpoints
      .find(f.filter, { ...f.options, projection: { _id: 0, dueAt: 1 } })
      .limit(1)
      .toArray();
    return first?.dueAt;
  };
  const any = P.dueTenant(t._id);
  const lower = (to: number) => conn.dueTenants.updateOne(any.filter, lowerTenantTo(t, to), { ...any.options, upsert: true });
  const first = await lowest();
  if (first !== undefined && first <= t.dueAt) {
    await lower(first);
    return;
  }
  const read = P.dueTenant(t._id, t.dueAt);
  if (first === undefined) await conn.dueTenants.deleteOne(read.filter, read.options);
  else if ((await conn.dueTenants.updateOne(read.filter, { $set: { dueAt: first } }, read.options)).matchedCount === 0) {
    await lower(first);
    return;
  }
  const again = await lowest();
  if (again !== undefined && (first === undefined || again < first)) await lower(again);
}

/**
 * The entries of a batch (in bound order) to take now: each tenant's first, as many as it has
 * room for below `perTenant` deliveries given (`givenOfTenant`, not changed here: an entry may
 * give none, or several) — or, `all`, every entry of a tenant with room; the others are passed over.
 */
export function withinShares<Q extends { orgId: string; env: string }>(
  page: readonly Q[],
  givenOfTenant: ReadonlyMap<string, number>,
  perTenant: number,
  all = false,
): Q[] {
  const takenHere = new Map<string, number>();
  return page.filter((q) => {
    const key = tenantKey(q);
    const n = (givenOfTenant.get(key) ?? 0) + (all ? 0 : (takenHere.get(key) ?? 0));
    if (n >= perTenant) return false;
    takenHere.set(key, (takenHere.get(key) ?? 0) + 1);
    return true;
  });
}

/**
 * At most `perEndpoint` of each endpoint, oldest due first: an endpoint has an entry per month
 * with due work (a retry from last month beside this month's), each read for its own share.
 */
export function sharePerEndpoint<E extends { endpointId: string }>(sorted: readonly E[], perEndpoint: number): E[] {
  const taken = new Map<string, number>();
  return sorted.filter((d) => {
    const n = taken.get(d.endpointId) ?? 0;
    taken.set(d.endpointId, n + 1);
    return n < perEndpoint;
  });
}

/** At most `perTenant` of each tenant (org and environment), in their order. */
export function sharePerTenant<E extends { tenant: Tenant }>(sorted: readonly E[], perTenant: number): E[] {
  const taken = new Map<string, number>();
  return sorted.filter((d) => {
    const key = tenantKey(d.tenant);
    const n = taken.get(key) ?? 0;
    taken.set(key, n + 1);
    return n < perTenant;
  });
}

/** The next page of tenants whose bound has come, after `last` (by bound, then id). */
function readTenantPage(conn: MongoConnection, now: number, last: QueuedTenant | undefined): Promise<QueuedTenant[]> {
  const rest = P.dueTenants(now, last?.dueAt);
  const tied = last === undefined ? undefined : P.dueTenantsTied(last.dueAt, last._id);
  return pageAfter(conn.dueTenants, rest, tied, DUE_TENANTS_PAGE) as Promise<QueuedTenant[]>;
}

/** The next `size` of tenant `t`'s entries whose bound has come, after `after` (by bound, then id). */
function readTenantBatch(
  conn: MongoConnection,
  t: QueuedTenant,
  now: number,
  after: { dueAt: number; _id: string } | undefined,
  size: number,
): Promise<Queued[]> {
  const rest = P.tenantDueEndpoints(t, now, after?.dueAt);
  const tied = after === undefined ? undefined : P.tenantDueEndpointsTied(t, after.dueAt, after._id);
  return pageAfter(conn.dueEndpoints, rest, tied, size);
}

/** Up to `size` of a range read in its order: what ties the last one read (`tied`, after its _id) first, then the rest — read at once. */
async function pageAfter<D extends Document>(
  collection: Collection<D>,
  rest: { filter: Filter<D>; options: FindOptions },
  tied: { filter: Filter<D>; options: FindOptions } | undefined,
  size: number,
): Promise<WithId<D>[]> {
  const read = (q: { filter: Filter<D>; options: FindOptions }) => collection.find(q.filter, q.options).limit(size).toArray();
  if (tied === undefined) return read(rest);
  const both = await Promise.all([read(tied), read(rest)]);
  return both.flat().slice(0, size);
}

/** Oldest due first; ties by id. */
function byDue(a: Entry, b: Entry): number {
  return a.dueAt - b.dueAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

/**
 * Reads each of `queued`'s first delivery; takes for this sweep those with one due now (another
 * dispatcher's page skips what this one won), reads their endpoints' statuses and their first
 * entries again, moves each one's bound (nextBound) and returns each active endpoint's share of
 * what is due, and the tenants of entries this call won that gave none. An entry whose bound was
 * stale — nothing due now: its deliveries leased or done since, the common case with sparse
 * traffic — is not taken: its bound is moved on from the value and count it was read at
 * (compare-and-set, then its first delivery read again, as after a take), one write where a take
 * and a move were two. Examines 2 documents a stale entry (3 when its endpoint is not active:
 * its status read again), perEndpoint + 4 a taken one, and one status an endpoint.
 */
async function takeAndRead(
  conn: MongoConnection,
  now: number,
  queued: readonly Queued[],
  perEndpoint: number,
): Promise<{ given: GivenEntry[]; emptyOf: Set<string> }> {
  const held = now + DUE_PAGE_LEASE_MS;
  // An entry of a month retention has dropped (a late noteDue wrote it): deleted, not read.
  const oldest = (await conn.months(now))[0];
  const dropped = queued.filter((e) => oldest !== undefined && e.month < oldest);
  for (const e of dropped) {
    const q = P.dueEndpoint(e._id, e.dueAt);
    await conn.dueEndpoints.deleteOne(q.filter, q.options);
  }
  const live = queued.filter((e) => !dropped.includes(e));
  const emptyOf = new Set<string>();
  if (live.length === 0) return { given: [], emptyOf };
  const firstEntries = (e: Queued, limit: number) => {
    const q = P.dueOfEndpoint(e.endpointId);
    return conn
      .bucket(e.month)
      .deliveries.find(q.filter, { ...q.options, projection: { _id: 1, endpointId: 1, dueAt: 1 } })
      .limit(limit)
      .toArray() as Promise<Entry[]>;
  };
  // Before any write: whether an entry's first delivery is due decides whether it is taken at all.
  const firsts = await Promise.all(live.map((e) => firstEntries(e, 1)));
  const taking = live.map((_, i) => firsts[i]!.some((d) => d.dueAt <= now));
  // The takes, by the value and the count read: a sweep that took one and moved it back to that value since has counted.
  const kept = (
    await Promise.all(
      live.map(async (e, i) => {
        if (!taking[i]) return i;
        const q = P.dueEndpoint(e._id, e.dueAt, e.seq ?? null);
        return (await conn.dueEndpoints.updateOne(q.filter, { $set: { dueAt: held }, $inc: { seq: 1 } }, q.options)).modifiedCount === 1 ? i : null;
      }),
    )
  ).filter((i) => i !== null);
  if (kept.length === 0) return { given: [], emptyOf };
  // After the takes (a resume committed since a take has its noteDue meet the taken bound, and the move then fails).
  const status = await statusesOf(
    conn,
    kept.map((i) => live[i]!.endpointId),
  );
  const given: GivenEntry[] = [];
  const stranded: Stranded[] = [];
  await Promise.all(
    kept.map(async (i) => {
      const queuedEndpoint = live[i]!;
      const t = { orgId: queuedEndpoint.orgId, env: queuedEndpoint.env };
      const state = status.get(queuedEndpoint.endpointId);
      // A taken entry read again once taken: what the sweep hands out is what no other sweep is reading now.
      const entries = taking[i] ? await firstEntries(queuedEndpoint, perEndpoint + 1) : firsts[i]!;
      const ready = entries.filter((d) => d.dueAt <= now);
      // Due here, but the endpoint is not active (or gone): held, or failed with it (stranded.ts).
      if (state === 'active') given.push(...ready.slice(0, perEndpoint).map((d) => ({ ...d, tenant: { orgId: t.orgId as OrgId, env: t.env } })));
      else for (const d of ready.slice(0, STRANDED_PEEK)) stranded.push({ _id: d._id, endpointId: d.endpointId, ...t });
      const next = nextBound(state, entries, now);
      // From the value and count this call left (taken: `held`, and the count its take wrote — two sweeps of one
      // millisecond set the same `held`) or read (not taken: another sweep may have taken it and moved it back since).
      const [from, seq] = taking[i] ? [held, (queuedEndpoint.seq ?? 0) + 1] : [queuedEndpoint.dueAt, queuedEndpoint.seq ?? null];
      const gone = P.dueEndpoint(queuedEndpoint._id, from, seq);
      const moved =
        next === 'gone'
          ? (await conn.dueEndpoints.deleteOne(gone.filter, gone.options)).deletedCount === 1
          : await moveDue(conn, t, queuedEndpoint.endpointId, queuedEndpoint.month, from, next, entries[0]?.dueAt ?? DUE_NEVER, seq);
      // Not taken, and moved meanwhile (another sweep took it, or a noteDue lowered it): not this call's.
      if (!taking[i] && !moved) return;
      // Not taken, so its status was read before its move: a resume that committed between the two (its noteDue then
      // lowering nothing) would leave its first delivery under the 5 s look-again bound. Read again, after the move.
      const first = entries[0];
      if (
        !taking[i] &&
        state !== 'active' &&
        first !== undefined &&
        (await statusesOf(conn, [queuedEndpoint.endpointId])).get(queuedEndpoint.endpointId) === 'active'
      ) {
        await noteDue(conn, [{ ...t, endpointId: queuedEndpoint.endpointId, month: queuedEndpoint.month, dueAt: first.dueAt }]);
      }
      if (state !== 'active' || ready.length === 0) emptyOf.add(tenantKey(t));
    }),
  );
  if (stranded.length > 0) await repairStranded(conn, stranded, now);
  return { given, emptyOf };
}

/** The statuses of `endpointIds` (one read of their _ids, on the primary): absent when deleted. */
async function statusesOf(conn: MongoConnection, endpointIds: readonly string[]): Promise<Map<string, string>> {
  const q = P.endpointStatuses([...new Set(endpointIds)]);
  const found = await conn.endpoints.find(q.filter, { ...q.options, projection: { status: 1 } }).toArray();
  return new Map(found.map((e) => [e._id as string, e.status as string]));
}

/**
 * Where a sweep moves an endpoint's bound once it read the endpoint's first entries (oldest due
 * first): an active endpoint's is its first entry's time (still due, a lease's end, a retry's),
 * never when it has none; one not active is looked at again after STRANDED_PEEK_INTERVAL_MS
 * (its resume's walk lowers it), so a long walk of a disabled endpoint takes no place on every
 * page; `gone` when its endpoint no longer exists and nothing of it is left (its entry is
 * deleted: without its endpoint, no delivery of it can be made due again).
 */
export function nextBound(state: string | undefined, entries: readonly { dueAt: number }[], now: number): number | 'gone' {
  const first = entries[0]?.dueAt ?? DUE_NEVER;
  if (state === 'active') return first;
  if (entries.length === 0) return state === undefined ? 'gone' : DUE_NEVER;
  return Math.max(first, now + STRANDED_PEEK_INTERVAL_MS);
}

/**
 * The healer (due-queue.ts), every STRANDED_PEEK_INTERVAL_MS: lowers the bounds of the
 * endpoints among the first STRANDED_PEEK entries of each month's due index, and of the next
 * HEAL_STEPS endpoints with open work after `cursor` (`<month>:<endpoint id>`: months oldest
 * first, endpoints in id order; one seek each on deliveries_endpoint_due_queue), so a delivery
 * whose noteDue was lost with its process is found within a pass over the endpoints with open
 * work, not only once the older backlog has drained; and tells the messages of up to
 * STRANDED_PEEK flagged completions a month their result (repairMessageStatuses). Examines ≤
 * 2 × months × STRANDED_PEEK + 2 × HEAL_STEPS. @returns the cursor for the next call ('' at the end;
 * every dispatcher's: heal-cursors.ts).
 */
export async function healDueQueue(conn: MongoConnection, now: number, cursor: string): Promise<string> {
  // Next month's collections exist well before its first message (a cached read until then).
  // Off the sweep's result: a failure here is told, and tried again at the next healing.
  await ensureMonths(conn, now).catch((err: unknown) => process.emitWarning(`wirehook: making the next month's collections: ${String(err)}`));
  const q = P.dueHead(now);
  const months = await conn.months(now);
  // Completions whose process died before their message heard of them (message-status.ts).
  await repairMessageStatuses(conn, months, STRANDED_PEEK).catch((err: unknown) =>
    process.emitWarning(`wirehook: repairing messages' statuses: ${err instanceof Error ? err.message : String(err)}`),
  );
  const heads = await Promise.all(
    months.map(async (month) =>
      (
        await conn
          .bucket(month)
          .deliveries.find(q.filter, { ...q.options, projection: { _id: 0, endpointId: 1, orgId: 1, env: 1, dueAt: 1 } })
          .limit(STRANDED_PEEK)
          .toArray()
      ).map((d) => ({ ...d, month })),
    ),
  );
  const head = heads.flat();
  // An endpoint with a walk still to run (a disabling's fail walk: its backlog is often the
  // head) is left at the later bound a sweep gave it; the walk is what ends its deliveries.
  const w = P.walksOf([...new Set(head.map((d) => d.endpointId))]);
  const walking = new Set((await conn.endpointWalks.find(w.filter, { ...w.options, projection: { _id: 1 } }).toArray()).map((d) => d._id));
  const notes: DueNote[] = head
    .filter((d) => !walking.has(d.endpointId))
    .map((d) => ({ orgId: d.orgId, env: d.env, endpointId: d.endpointId, month: d.month, dueAt: d.dueAt as number }));
  let { month, after } = parseHealCursor(cursor, months);
  for (let step = 0; step < HEAL_STEPS && month !== undefined; step++) {
    const next = await nextEndpointFirstDue(conn, month, after);
    if (next === null) {
      // This month is done: the next one from its start.
      month = months.find((m) => m > month!);
      after = '';
      continue;
    }
    after = next.endpointId;
    if (next.note !== null) notes.push(next.note);
  }
  // And their tenants, whether or not an entry moved: a process that died between an entry's
  // $min and its tenant's left the entry low and its tenant high, which noteDue alone (nothing
  // lowered) would never mend (helper 256). ≤ 2 × months × STRANDED_PEEK + HEAL_STEPS `$min`s by
  // _id, mostly no-ops, every STRANDED_PEEK_INTERVAL_MS.
  await noteDue(conn, notes, { tenantsAlways: true });
  return month === undefined ? '' : `${month}:${after}`;
}

/**
 * The healer's walk of the tenants' bounds (every STRANDED_PEEK_INTERVAL_MS, beside healDueQueue):
 * the next HEAL_ENTRIES entries of `due_endpoints` past `after` by _id, their tenants lowered to
 * the least of their bounds (one bulk write of `$min`s by _id, mostly no-ops). A process that died
 * between a send's answer and its tenant's `$min` (noteDue's tenantsSoon), or notes past the tenant
 * writer's cap, left an entry below its tenant's bound: mended within one pass of the entries —
 * one an endpoint and kept month that had work, idle ones too: 400 a second (10⁵ endpoints over
 * 4 months: ≈ 17 minutes) — not only once it reaches the head of the due index (helper 267).
 * @returns where the next walk goes on ('' once past the last: from the first).
 */
export async function healTenantBounds(conn: MongoConnection, after: string): Promise<string> {
  const q = P.dueEntriesAfter(after);
  // One batch: the server's first would be 101 documents, then a getMore.
  const page = await conn.dueEndpoints
    .find(q.filter, { ...q.options, projection: { orgId: 1, env: 1, dueAt: 1 }, batchSize: HEAL_ENTRIES })
    .limit(HEAL_ENTRIES)
    .toArray();
  // An entry at DUE_NEVER has nothing due: no tenant bound to make for it.
  await lowerTenants(
    conn,
    page.filter((e) => e.dueAt < DUE_NEVER),
  );
  return page.length < HEAL_ENTRIES ? '' : page[page.length - 1]!._id;
}

/** Entries the healer's walk of the tenants' bounds reads a pass. */
export const HEAL_ENTRIES = 2_000;

/** Where a healing goes on: `<month>:<endpoint id>`; '' (or a month no longer kept) starts at the oldest month. */
export function parseHealCursor(cursor: string, months: readonly Month[]): { month: Month | undefined; after: string } {
  const [month, after = ''] = cursor.split(':', 2) as [string, string | undefined];
  if (cursor !== '' && months.includes(month)) return { month, after };
  return { month: months[0], after: '' };
}

/** Endpoints with open work one healing looks at past its cursor. */
const HEAL_STEPS = 200;

/**
 * Takes the lease of delivery `id` until `leaseUntil` when it is claimable at `now`: one
 * conditional update by _id decides (of two dispatchers claiming one delivery, exactly one
 * matches, and moves its dueAt to the lease's end), then its endpoint, message and body are
 * read together by _id. A delivery whose endpoint turns out not to be active (stranded.ts: rare)
 * gets its lease back at once. 1 write, then 3 point reads in one round trip.
 * @returns the job, or null when the delivery is not claimable now.
 */
export async function claimDelivery(conn: MongoConnection, id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null> {
  const bucket = conn.bucketOf(id);
  const claim = P.claim(id, now);
  const leased = await bucket.deliveries.findOneAndUpdate(
    claim.filter,
    { $set: { leaseUntil, dueAt: leaseUntil, resend: false }, $inc: { leaseToken: 1 } },
    { ...claim.options, returnDocument: 'after' },
  );
  if (leased === null) return null;
  const tenant: Tenant = { orgId: leased.orgId as OrgId, env: leased.env as Environment };
  const active = P.activeEndpoint(tenant, leased.endpointId);
  const byId = MESSAGE_PLANS.byId(tenant, leased.messageId);
  // The body by the message's id, read beside the message (the message's own payload only for
  // messages stored before bodies moved out: then the body read finds nothing, harmlessly).
  const body = MESSAGE_PLANS.body(tenant, leased.messageId);
  // On the primary (the lease was just taken there): a lagging secondary would not yet hold a
  // message created a moment ago, and the claim would fail with "lost its message".
  const [endpoint, message, stored] = await Promise.all([
    // Without the transformation's code (up to 32 KB a claim): a dispatcher reads it once per change (endpoints.transformation).
    conn.endpoints.findOne(active.filter, { ...active.options, ...ON_PRIMARY, projection: { 'transformation.code': 0 } }),
    // By the message's own id: the month of its deliveries too (connection.ts, bucketOf), read
    // from the message's side so that a pair a clock split across a boundary still holds.
    conn.bucketOf(leased.messageId).messages.findOne(byId.filter, { ...byId.options, ...ON_PRIMARY, projection: { eventType: 1, payload: 1, createdAt: 1 } }),
    conn.bucketOf(leased.messageId).messageBodies.findOne(body.filter, { ...body.options, ...ON_PRIMARY, projection: { payload: 1 } }),
  ]);
  if (endpoint === null) {
    // Paused, disabled or deleted since it became due: not sent; due as it was (the sweep's
    // stranded repair holds or fails it).
    const own = P.current(tenant, id, leased.leaseToken ?? 0);
    const dueAt = leased.nextAttemptAt ?? now;
    await bucket.deliveries.updateOne(own.filter, { $set: { leaseUntil: null, dueAt } }, own.options);
    await noteDue(conn, [{ ...tenant, endpointId: leased.endpointId, month: bucket.month, dueAt }]);
    return null;
  }
  if (message === null) throw new Error(`delivery ${id} lost its message ${leased.messageId}`);
  const payload = message.payload ?? stored?.payload;
  if (payload === undefined) throw new Error(`message ${leased.messageId} lost its body`);
  return {
    tenant,
    delivery: toDelivery(leased),
    message: { id: message._id as MessageId, eventType: message.eventType, payload, createdAt: message.createdAt },
    endpoint: toJobEndpoint(endpoint),
    secrets: validSecrets(endpoint.secrets, now),
    leaseToken: leased.leaseToken ?? 0,
  };
}
