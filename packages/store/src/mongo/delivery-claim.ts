import type { DeliveryId, EndpointId, Environment, MessageId, OrgId, Tenant } from '@wirehook/core';
import type { DeliveryJob, DueDelivery } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { DUE_NEVER, type DueNote, moveDue, nextEndpointFirstDue, noteDue } from './due-queue.ts';
import { toDelivery, toEndpoint, validSecrets } from './mappers.ts';
import { MESSAGES_PLANS as MESSAGE_PLANS } from './plans/messages.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { repairStranded, STRANDED_PEEK, STRANDED_PEEK_INTERVAL_MS, type Stranded } from './stranded.ts';

// The sweep and the claim. A delivery is claimable when it is open, not held, not waiting in
// its ordered lane, its `dueAt` has come (a lease moves dueAt to the lease's end, so a leased
// delivery is not due by its key), and its endpoint (of the same tenant) is active.

/** Endpoints one page of a sweep reads from the first level of the due queue. */
export const DUE_ENDPOINTS_PAGE = 64;
/** Pages one sweep reads at most while its limit is not filled. */
const DUE_PAGES = 4;
/**
 * How long a sweep holds the endpoints of its page (their bound set this far ahead, by
 * compare-and-set): dispatchers sweeping at once read disjoint pages, and a sweep that dies
 * leaves its endpoints to others this much later.
 */
export const DUE_PAGE_LEASE_MS = 10_000;
/**
 * How long an endpoint that gave the sweep its due deliveries stays off the page: those are on
 * their way (published, then leased), and the page is for other endpoints meanwhile. An
 * endpoint with a backlog comes back this often, perEndpoint at a time (its wake-ups and
 * `filledShare` sweeps fetch more once its own queue drains).
 */
export const DUE_PUT_ASIDE_MS = 250;

interface Entry {
  _id: string;
  endpointId: string;
  dueAt: number;
}

/**
 * Ids of claimable deliveries, oldest due first, at most `perEndpoint` of one endpoint, in two
 * levels (due-queue.ts): pages of endpoints whose bound has come, each endpoint taken by
 * compare-and-set for this sweep, then each one's first `perEndpoint + 1` entries. Examines
 * ≤ DUE_PAGES × DUE_ENDPOINTS_PAGE × (perEndpoint + 2) documents, whatever the backlog; one
 * endpoint's backlog fills its share, never the page. Each endpoint's bound then moves on: put
 * aside DUE_PUT_ASIDE_MS when it gave deliveries, to its first entry's time (a lease's end, a
 * retry's) when it had none due, never when it has none, later when it is not active.
 */
export async function dueDeliveries(conn: MongoConnection, now: number, limit: number, perEndpoint: number): Promise<DueDelivery[]> {
  const due: Entry[] = [];
  for (let page = 0; page < DUE_PAGES && due.length < limit; page++) {
    const read = await duePage(conn, now, Math.min(DUE_ENDPOINTS_PAGE, limit), perEndpoint, limit - due.length);
    due.push(...read.due);
    if (!read.full) break;
  }
  return due.map((d) => ({ id: d._id as DeliveryId, endpointId: d.endpointId as EndpointId }));
}

/**
 * Where a sweep moves an endpoint's bound, from what it read (its first entries, oldest due
 * first, and whether the page gave some of them): an active endpoint that gave deliveries is
 * put aside DUE_PUT_ASIDE_MS (they are on their way); one that gave none waits for its first
 * entry (a retry's or a lease's time; still due when the page had no room); one not active is
 * looked at again after STRANDED_PEEK_INTERVAL_MS (its resume's walk lowers it), so a long walk
 * of a disabled endpoint takes no place on every page; `gone` when its endpoint no longer
 * exists and nothing of it is left (its entry is deleted: without its endpoint, no delivery of
 * it can be made due again).
 */
export function nextBound(state: string | undefined, entries: readonly { dueAt: number }[], gave: boolean, now: number): number | 'gone' {
  const first = entries[0]?.dueAt ?? DUE_NEVER;
  if (state === 'active') return gave ? Math.max(first, now + DUE_PUT_ASIDE_MS) : first;
  if (entries.length === 0) return state === undefined ? 'gone' : DUE_NEVER;
  return Math.max(first, now + STRANDED_PEEK_INTERVAL_MS);
}

/** Oldest due first; ties by id. */
function byDue(a: Entry, b: Entry): number {
  return a.dueAt - b.dueAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

/**
 * One page of the first level: its endpoints taken, read, at most `room` of their due
 * deliveries given (oldest due first), and each endpoint's bound moved on.
 */
async function duePage(conn: MongoConnection, now: number, size: number, perEndpoint: number, room: number): Promise<{ due: Entry[]; full: boolean }> {
  const page = P.dueEndpoints(now);
  const queued = await conn.dueEndpoints.find(page.filter, page.options).limit(size).toArray();
  if (queued.length === 0) return { due: [], full: false };
  // Taken for this sweep: another dispatcher's page skips what this one won.
  const held = now + DUE_PAGE_LEASE_MS;
  const won = (
    await Promise.all(
      queued.map(async (e) => {
        const q = P.dueEndpoint(e._id, e.dueAt);
        const { modifiedCount } = await conn.dueEndpoints.updateOne(q.filter, { $set: { dueAt: held } }, q.options);
        return modifiedCount === 1 ? e : null;
      }),
    )
  ).filter((e) => e !== null);
  if (won.length === 0) return { due: [], full: queued.length === size };
  const statuses = P.endpointStatuses(won.map((e) => e._id));
  const status = new Map(
    (await conn.endpoints.find(statuses.filter, { ...statuses.options, projection: { status: 1 } }).toArray()).map((e) => [e._id, e.status]),
  );
  const read = await Promise.all(
    won.map(async (queuedEndpoint) => {
      const q = P.dueOfEndpoint(queuedEndpoint._id);
      const entries = (await conn.deliveries
        .find(q.filter, { ...q.options, projection: { _id: 1, endpointId: 1, dueAt: 1 } })
        .limit(perEndpoint + 1)
        .toArray()) as Entry[];
      return { queued: queuedEndpoint, entries, state: status.get(queuedEndpoint._id) };
    }),
  );
  // The page's answer: each active endpoint's share of its due entries, oldest due first, at most `room`.
  const given = read
    .filter((r) => r.state === 'active')
    .flatMap((r) => r.entries.filter((d) => d.dueAt <= now).slice(0, perEndpoint))
    .sort(byDue)
    .slice(0, room);
  const gave = new Set(given.map((d) => d.endpointId));
  const stranded: Stranded[] = [];
  await Promise.all(
    read.map(async ({ queued: queuedEndpoint, entries, state }) => {
      const t = { orgId: queuedEndpoint.orgId, env: queuedEndpoint.env };
      const next = nextBound(state, entries, gave.has(queuedEndpoint._id), now);
      if (next === 'gone') {
        const gone = P.dueEndpoint(queuedEndpoint._id, held);
        await conn.dueEndpoints.deleteOne(gone.filter, gone.options);
        return;
      }
      // Due here, but the endpoint is not active (or gone): held, or failed with it (stranded.ts).
      if (state !== 'active') {
        for (const d of entries.filter((e) => e.dueAt <= now).slice(0, STRANDED_PEEK)) stranded.push({ _id: d._id, endpointId: d.endpointId, ...t });
      }
      await moveDue(conn, t, queuedEndpoint._id, held, next, entries[0]?.dueAt ?? DUE_NEVER);
    }),
  );
  if (stranded.length > 0) await repairStranded(conn, stranded, now);
  return { due: given, full: queued.length === size };
}

/**
 * The healer (due-queue.ts), every STRANDED_PEEK_INTERVAL_MS: lowers the bounds of the
 * endpoints among the first STRANDED_PEEK entries of the store-wide due index, and of the next
 * HEAL_STEPS endpoints with open work after `cursor` in id order (one seek each on
 * deliveries_endpoint_due_queue), so a delivery whose noteDue was lost with its process is found
 * within a pass over the endpoints with open work, not only once the older backlog has drained.
 * Examines ≤ STRANDED_PEEK + 2 × HEAL_STEPS. @returns the cursor for the next call ('' at the end).
 */
export async function healDueQueue(conn: MongoConnection, now: number, cursor: string): Promise<string> {
  const q = P.dueHead(now);
  const head = await conn.deliveries
    .find(q.filter, { ...q.options, projection: { _id: 0, endpointId: 1, orgId: 1, env: 1, dueAt: 1 } })
    .limit(STRANDED_PEEK)
    .toArray();
  const notes: DueNote[] = head.map((d) => ({ orgId: d.orgId, env: d.env, endpointId: d.endpointId, dueAt: d.dueAt as number }));
  let after = cursor;
  for (let step = 0; step < HEAL_STEPS; step++) {
    const next = await nextEndpointFirstDue(conn, after);
    if (next === null) {
      after = '';
      break;
    }
    after = next.endpointId;
    if (next.note !== null) notes.push(next.note);
  }
  await noteDue(conn, notes);
  return after;
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
  const claim = P.claim(id, now);
  const leased = await conn.deliveries.findOneAndUpdate(
    claim.filter,
    { $set: { leaseUntil, dueAt: leaseUntil, resend: false }, $inc: { leaseToken: 1 } },
    { ...claim.options, returnDocument: 'after' },
  );
  if (leased === null) return null;
  const tenant: Tenant = { orgId: leased.orgId as OrgId, env: leased.env as Environment };
  const active = P.activeEndpoint(tenant, leased.endpointId);
  const byId = P.byId(tenant, leased.messageId);
  // The body by the message's id, read beside the message (the message's own payload only for
  // messages stored before bodies moved out: then the body read finds nothing, harmlessly).
  const body = MESSAGE_PLANS.body(tenant, leased.messageId);
  const [endpoint, message, stored] = await Promise.all([
    conn.endpoints.findOne(active.filter, active.options),
    conn.messages.findOne(byId.filter, { ...byId.options, projection: { eventType: 1, payload: 1, createdAt: 1 } }),
    conn.messageBodies.findOne(body.filter, { ...body.options, projection: { payload: 1 } }),
  ]);
  if (endpoint === null) {
    // Paused, disabled or deleted since it became due: not sent; due as it was (the sweep's
    // stranded repair holds or fails it).
    const own = P.current(tenant, id, leased.leaseToken ?? 0);
    const dueAt = leased.nextAttemptAt ?? now;
    await conn.deliveries.updateOne(own.filter, { $set: { leaseUntil: null, dueAt } }, own.options);
    await noteDue(conn, [{ ...tenant, endpointId: leased.endpointId, dueAt }]);
    return null;
  }
  if (message === null) throw new Error(`delivery ${id} lost its message ${leased.messageId}`);
  const payload = message.payload ?? stored?.payload;
  if (payload === undefined) throw new Error(`message ${leased.messageId} lost its body`);
  return {
    tenant,
    delivery: toDelivery(leased),
    message: { id: message._id as MessageId, eventType: message.eventType, payload, createdAt: message.createdAt },
    endpoint: toEndpoint(endpoint),
    secrets: validSecrets(endpoint.secrets, now),
    leaseToken: leased.leaseToken ?? 0,
  };
}
