import type { DeliveryId, EndpointId, Environment, MessageId, OrgId, Tenant } from '@wirehook/core';
import type { DeliveryJob, DueDelivery } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import { DUE_NEVER, noteDue, raiseDue } from './due-queue.ts';
import { toDelivery, toEndpoint, validSecrets } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { DELIVERIES_PLANS as P } from './plans/deliveries.ts';
import { repairStranded, STRANDED_PEEK, STRANDED_PEEK_INTERVAL_MS, type Stranded } from './stranded.ts';

// The sweep and the claim. A delivery is claimable when it is open, not held, not waiting in
// its ordered lane, its `dueAt` has come (a lease moves dueAt to the lease's end, so a leased
// delivery is not due by its key), and its endpoint (of the same tenant) is active.

/** Endpoints one sweep reads from the first level of the due queue. */
export const DUE_ENDPOINTS_PAGE = 64;

interface Entry {
  _id: string;
  endpointId: string;
  dueAt: number;
}

/**
 * Ids of claimable deliveries, oldest due first, at most `perEndpoint` of one endpoint, in two
 * levels (due-queue.ts): a page of endpoints whose due time has come, then each one's first
 * `perEndpoint + 1` entries. Examines ≤ DUE_ENDPOINTS_PAGE × (perEndpoint + 2) documents,
 * whatever the backlog; one endpoint's backlog fills its share, never the page. Each endpoint's
 * bound then moves to its first entry (a leased one's lease end, a retry's time), so an
 * endpoint whose work is all in flight or later leaves the page until then.
 */
export async function dueDeliveries(conn: MongoConnection, now: number, limit: number, perEndpoint: number): Promise<DueDelivery[]> {
  const page = P.dueEndpoints(now);
  const endpoints = await conn.dueEndpoints.find(page.filter, page.options).limit(Math.min(DUE_ENDPOINTS_PAGE, limit)).toArray();
  if (endpoints.length === 0) return [];
  const statuses = P.endpointStatuses(endpoints.map((e) => e._id));
  const active = new Set(
    (await conn.endpoints.find(statuses.filter, { ...statuses.options, projection: { status: 1 } }).toArray())
      .filter((e) => e.status === 'active')
      .map((e) => e._id),
  );
  const pages = await Promise.all(
    endpoints.map(async (e) => {
      const q = P.dueOfEndpoint(e._id);
      const entries = (await conn.deliveries
        .find(q.filter, { ...q.options, projection: { _id: 1, endpointId: 1, dueAt: 1 } })
        .limit(perEndpoint + 1)
        .toArray()) as Entry[];
      return { queued: e, entries };
    }),
  );
  const due: Entry[] = [];
  const stranded: Stranded[] = [];
  await Promise.all(
    pages.map(async ({ queued, entries }) => {
      const t = { orgId: queued.orgId, env: queued.env };
      const ready = entries.filter((d) => d.dueAt <= now);
      // Its bound follows its first entry: still due (the page's share is taken, the rest
      // waits its turn), a lease's end or a retry's time, or never. An endpoint that is not
      // active is looked at again after STRANDED_PEEK_INTERVAL_MS (a resume's walk lowers it),
      // so a long walk of a disabled endpoint does not take a place on every page.
      const first = entries[0]?.dueAt ?? DUE_NEVER;
      if (active.has(queued._id)) due.push(...ready.slice(0, perEndpoint));
      else for (const d of ready.slice(0, STRANDED_PEEK)) stranded.push({ _id: d._id, endpointId: d.endpointId, ...t });
      await raiseDue(conn, t, queued._id, queued.dueAt, active.has(queued._id) ? first : Math.max(first, now + STRANDED_PEEK_INTERVAL_MS), first);
    }),
  );
  // Due here, but the endpoint is not active: held, or failed with it (stranded.ts).
  if (stranded.length > 0) await repairStranded(conn, stranded, now);
  due.sort((a, b) => a.dueAt - b.dueAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  return due.slice(0, limit).map((d) => ({ id: d._id as DeliveryId, endpointId: d.endpointId as EndpointId }));
}

/**
 * The healer (due-queue.ts): lowers the bound of every endpoint among the first STRANDED_PEEK
 * entries of the store-wide due index to its entry's dueAt, so a delivery whose noteDue was
 * lost with its process is served in due order at worst. Examines ≤ STRANDED_PEEK.
 */
export async function healDueQueue(conn: MongoConnection, now: number): Promise<void> {
  const q = P.dueHead(now);
  const head = await conn.deliveries
    .find(q.filter, { ...q.options, projection: { _id: 0, endpointId: 1, orgId: 1, env: 1, dueAt: 1 } })
    .limit(STRANDED_PEEK)
    .toArray();
  await noteDue(
    conn,
    head.map((d) => ({ orgId: d.orgId, env: d.env, endpointId: d.endpointId, dueAt: d.dueAt as number })),
  );
}

/**
 * Takes the lease of delivery `id` until `leaseUntil` when it is claimable at `now`: one
 * conditional update by _id decides (of two dispatchers claiming one delivery, exactly one
 * matches, and moves its dueAt to the lease's end), then its endpoint, message and body are
 * read together by _id. A delivery whose endpoint turns out not to be active (stranded.ts: rare)
 * gets its lease back at once. 1 write and 3 point reads in one round trip after it.
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
  const [endpoint, message] = await Promise.all([
    conn.endpoints.findOne(active.filter, active.options),
    conn.messages.findOne(byId.filter, { ...byId.options, projection: { eventType: 1, payload: 1, createdAt: 1 } }),
  ]);
  if (endpoint === null) {
    // Paused, disabled or deleted since it became due: not sent; due as it was (the sweep's
    // stranded repair holds or fails it).
    const own = P.current(tenant, id, leased.leaseToken ?? 0);
    await conn.deliveries.updateOne(own.filter, { $set: { leaseUntil: null, dueAt: leased.nextAttemptAt ?? now } }, own.options);
    return null;
  }
  if (message === null) throw new Error(`delivery ${id} lost its message ${leased.messageId}`);
  const payload = await payloadOf(conn, tenant, message);
  return {
    tenant,
    delivery: toDelivery(leased),
    message: { id: message._id as MessageId, eventType: message.eventType, payload, createdAt: message.createdAt },
    endpoint: toEndpoint(endpoint),
    secrets: validSecrets(endpoint.secrets, now),
    leaseToken: leased.leaseToken ?? 0,
  };
}
