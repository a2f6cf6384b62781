import { tenantKey, type DeliveryId, type EndpointId, type Environment, type MessageId, type OrgId, type Tenant } from '@wirehook/core';
import type { DeliveryJob, DueDelivery } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { DUE_NEVER, type DueNote, moveDue, nextEndpointFirstDue, noteDue } from './due-queue.ts';
import { repairMessageStatuses } from './message-status.ts';
import { ensureMonths } from './month-buckets.ts';
import type { Month } from './months.ts';
import { toDelivery, toJobEndpoint, validSecrets } from './mappers.ts';
import { MESSAGES_PLANS as MESSAGE_PLANS } from './plans/messages.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { repairStranded, STRANDED_PEEK, STRANDED_PEEK_INTERVAL_MS, type Stranded } from './stranded.ts';

// The sweep and the claim. A delivery is claimable when it is open, not held, not waiting in
// its ordered lane, its `dueAt` has come (a lease moves dueAt to the lease's end, so a leased
// delivery is not due by its key), and its endpoint (of the same tenant) is active.

/** Endpoints one page of a sweep reads from the first level of the due queue. */
export const DUE_ENDPOINTS_PAGE = 64;
/** Pages one call reads beyond what its limit needs (past endpoints whose bound was stale). */
const DUE_EXTRA_PAGES = 8;
/**
 * How long a sweep holds the endpoints of its page while it reads them (their bound set this
 * far ahead by compare-and-set, then moved to what it read): dispatchers sweeping at the same
 * moment read disjoint endpoints, and a sweep that dies leaves its endpoints to others this much
 * later. Once moved, an endpoint whose deliveries were handed out is back at their time: a
 * sweep a few ms later may list the same ones (the claim's compare-and-set decides; the cost is
 * a failed claim, not a double send).
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
}

/**
 * Ids of claimable deliveries, oldest due first, at most `perEndpoint` of one endpoint
 * (sharePerEndpoint: each of its months' entries is read for that share), at most `perTenant`
 * of one tenant (sharePerTenant) and none of a tenant in `skip`, in two levels (due-queue.ts).
 * Entries (an endpoint's deliveries in one month) come in pages by their bound (a lower bound of
 * their first due time). Each entry taken is taken for the sweep by compare-and-set, read (its
 * first `perEndpoint + 1` entries) and its bound moved to what was read. A page's entries are
 * taken for each tenant while it has fewer than `perTenant` deliveries given in this call — in
 * rounds, so an entry whose bound was stale (its delivery leased since) leaves its place to the
 * tenant's next entry of the page, not to another page — and a tenant's further entries, and a
 * skipped tenant's, are passed over untouched (no write; their bounds, and so their order, stay).
 * Pages go on until `limit` deliveries are found and the next page's lowest bound is later than
 * the last of them (so the answer is the oldest due, not merely the first found), or the queue
 * ends, and at most ⌈limit / page⌉ + DUE_EXTRA_PAGES pages. Examines ≤ pages ×
 * DUE_ENDPOINTS_PAGE × (perEndpoint + 3) documents, whatever the backlog; one endpoint's
 * backlog fills its share, never the page, and one tenant's backlog over many endpoints its
 * share — though a tenant with more endpoints due than the pages hold hides what lies behind
 * them (docs/semantics.md: the tenant level this queue lacks). A read: two calls at one `now`
 * with nothing changed between give the same answer.
 */
export async function dueDeliveries(
  conn: MongoConnection,
  now: number,
  limit: number,
  perEndpoint: number,
  perTenant = limit,
  skip: readonly Tenant[] = [],
): Promise<DueDelivery[]> {
  const due: GivenEntry[] = [];
  const visited = new Set<string>();
  /** Deliveries given in this call, by tenant; a skipped tenant's share is already used up. */
  const givenOfTenant = new Map<string, number>(skip.map((t) => [tenantKey(t), perTenant]));
  const maxPages = Math.ceil(limit / DUE_ENDPOINTS_PAGE) + DUE_EXTRA_PAGES;
  const kept = () => sharePerTenant(sharePerEndpoint(due.sort(byDue), perEndpoint), perTenant);
  let last: Queued | undefined;
  for (let page = 0; page < maxPages; page++) {
    const queued = await readPage(conn, now, last);
    if (queued.length === 0) break;
    // The shares only cut what was found: fewer than `limit` found, fewer kept (no sort needed).
    const found = due.length >= limit ? kept() : due;
    if (found.length >= limit && queued[0]!.dueAt > found[limit - 1]!.dueAt) break;
    last = queued[queued.length - 1];
    let pending = queued.filter((q) => !visited.has(q._id));
    for (const q of pending) visited.add(q._id);
    // Two rounds at most: what the tenants' shares leave room for, then — for a tenant still short
    // because entries it won gave nothing (stale bounds: their deliveries leased since) — all of its
    // other entries on the page (more writes, whose moves set those bounds right; not a round an
    // entry: helper 254 counted 65 for one delivery). An entry another dispatcher won is no reason
    // for the second: it is that one's to read (helper 255).
    let take = withinShares(pending, givenOfTenant, perTenant);
    for (let round = 0; round < 2 && take.length > 0; round++) {
      const { given, emptyOf } = await takeAndRead(conn, now, take, perEndpoint);
      for (const g of given) givenOfTenant.set(tenantKey(g.tenant), (givenOfTenant.get(tenantKey(g.tenant)) ?? 0) + 1);
      due.push(...given);
      pending = pending.filter((q) => !take.includes(q));
      take = withinShares(
        pending.filter((q) => emptyOf.has(tenantKey(q))),
        givenOfTenant,
        perTenant,
        true,
      );
    }
    if (queued.length < DUE_ENDPOINTS_PAGE) break;
  }
  return kept()
    .slice(0, limit)
    .map((d) => ({ id: d._id as DeliveryId, endpointId: d.endpointId as EndpointId, tenant: d.tenant }));
}

/**
 * The entries of a page (in bound order) to take now: each tenant's first, as many as it has
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

/** The next page of endpoints whose bound has come, after `last` (by bound, then id). */
async function readPage(conn: MongoConnection, now: number, last: Queued | undefined): Promise<Queued[]> {
  const page: Queued[] = [];
  if (last !== undefined) {
    const tied = P.dueEndpointsTied(last.dueAt, last._id);
    page.push(...(await conn.dueEndpoints.find(tied.filter, tied.options).limit(DUE_ENDPOINTS_PAGE).toArray()));
  }
  if (page.length < DUE_ENDPOINTS_PAGE) {
    const after = P.dueEndpoints(now, last?.dueAt);
    page.push(
      ...(await conn.dueEndpoints
        .find(after.filter, after.options)
        .limit(DUE_ENDPOINTS_PAGE - page.length)
        .toArray()),
    );
  }
  return page;
}

/** Oldest due first; ties by id. */
function byDue(a: Entry, b: Entry): number {
  return a.dueAt - b.dueAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

/**
 * Takes `queued` for this sweep (another dispatcher's page skips what this one won), reads
 * each one's first entries, moves its bound (nextBound) and returns each active endpoint's
 * share of what is due, and the tenants of entries this call won that gave none.
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
  const won = (
    await Promise.all(
      queued
        .filter((e) => !dropped.includes(e))
        .map(async (e) => {
          const q = P.dueEndpoint(e._id, e.dueAt);
          const { modifiedCount } = await conn.dueEndpoints.updateOne(q.filter, { $set: { dueAt: held } }, q.options);
          return modifiedCount === 1 ? e : null;
        }),
    )
  ).filter((e) => e !== null);
  const emptyOf = new Set<string>();
  if (won.length === 0) return { given: [], emptyOf };
  const statuses = P.endpointStatuses([...new Set(won.map((e) => e.endpointId))]);
  const status = new Map(
    (await conn.endpoints.find(statuses.filter, { ...statuses.options, projection: { status: 1 } }).toArray()).map((e) => [e._id, e.status]),
  );
  const given: GivenEntry[] = [];
  const stranded: Stranded[] = [];
  await Promise.all(
    won.map(async (queuedEndpoint) => {
      const t = { orgId: queuedEndpoint.orgId, env: queuedEndpoint.env };
      const q = P.dueOfEndpoint(queuedEndpoint.endpointId);
      const entries = (await conn
        .bucket(queuedEndpoint.month)
        .deliveries.find(q.filter, { ...q.options, projection: { _id: 1, endpointId: 1, dueAt: 1 } })
        .limit(perEndpoint + 1)
        .toArray()) as Entry[];
      const state = status.get(queuedEndpoint.endpointId);
      const ready = entries.filter((d) => d.dueAt <= now);
      // Due here, but the endpoint is not active (or gone): held, or failed with it (stranded.ts).
      if (state === 'active') given.push(...ready.slice(0, perEndpoint).map((d) => ({ ...d, tenant: { orgId: t.orgId as OrgId, env: t.env } })));
      else for (const d of ready.slice(0, STRANDED_PEEK)) stranded.push({ _id: d._id, endpointId: d.endpointId, ...t });
      if (state !== 'active' || ready.length === 0) emptyOf.add(tenantKey(t));
      const next = nextBound(state, entries, now);
      if (next === 'gone') {
        const gone = P.dueEndpoint(queuedEndpoint._id, held);
        await conn.dueEndpoints.deleteOne(gone.filter, gone.options);
        return;
      }
      await moveDue(conn, t, queuedEndpoint.endpointId, queuedEndpoint.month, held, next, entries[0]?.dueAt ?? DUE_NEVER);
    }),
  );
  if (stranded.length > 0) await repairStranded(conn, stranded, now);
  return { given, emptyOf };
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
 * 2 × months × STRANDED_PEEK + 2 × HEAL_STEPS. @returns the cursor for the next call ('' at the end).
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
  await noteDue(conn, notes);
  return month === undefined ? '' : `${month}:${after}`;
}

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
  const [endpoint, message, stored] = await Promise.all([
    // Without the transformation's code (up to 32 KB a claim): a dispatcher reads it once per change (endpoints.transformation).
    conn.endpoints.findOne(active.filter, { ...active.options, projection: { 'transformation.code': 0 } }),
    // By the message's own id: the month of its deliveries too (connection.ts, bucketOf), read
    // from the message's side so that a pair a clock split across a boundary still holds.
    conn.bucketOf(leased.messageId).messages.findOne(byId.filter, { ...byId.options, projection: { eventType: 1, payload: 1, createdAt: 1 } }),
    conn.bucketOf(leased.messageId).messageBodies.findOne(body.filter, { ...body.options, projection: { payload: 1 } }),
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
