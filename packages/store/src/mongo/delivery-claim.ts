import type { DeliveryId, EndpointId, Environment, MessageId, OrgId, Tenant } from '@wirehook/core';
import type { Document, Filter } from 'mongodb';
import type { DeliveryJob, DueDelivery } from '../ports/delivery-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc } from './documents.ts';
import { toDelivery, toEndpoint, validSecrets } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { repairStranded, STRANDED_PEEK, type Stranded } from './stranded.ts';
import { OPEN_STATUSES } from './query.ts';

// Leases. A delivery is claimable when it is open, due, its lease is free or expired, and
// its endpoint (of the same tenant) exists and is active. `due` and `claim` share the
// delivery half of that test, so whatever `due` lists, `claim` can take.

/** The delivery half of "claimable at `now`". */
export function claimableFilter(now: number): Filter<DeliveryDoc> {
  return {
    status: { $in: OPEN_STATUSES },
    // Held (paused endpoint) deliveries are not in the due index at all (indexes.ts), nor are
    // those waiting behind their ordered lane's head (#31: only a lane's head is claimable).
    held: false,
    laneWait: false,
    nextAttemptAt: { $lte: now },
    $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }],
  };
}

/**
 * Ids of claimable deliveries, oldest due first, at most `perEndpoint` of one endpoint.
 * Usually the oldest due (the due index, then a look at each one's endpoint) is the answer;
 * when one endpoint's backlog fills the page, a second pass groups the due deliveries by
 * endpoint and takes the first `perEndpoint` of each, so other endpoints are not hidden.
 */
export async function dueDeliveries(conn: MongoConnection, now: number, limit: number, perEndpoint: number, peekStranded = true): Promise<DueDelivery[]> {
  const oldest = await conn.deliveries
    .aggregate<{ _id: string; endpointId: string }>([
      { $match: claimableFilter(now) },
      { $sort: { nextAttemptAt: 1, _id: 1 } },
      activeEndpointLookup(conn),
      { $match: { 'activeEndpoint.0': { $exists: true } } },
      { $limit: limit },
      { $project: { _id: 1, endpointId: 1 } },
    ])
    .toArray();
  if (peekStranded) await repairStrandedAtHead(conn, now);
  const taken = new Map<string, number>();
  const capped = oldest.filter((d) => {
    const n = taken.get(d.endpointId) ?? 0;
    taken.set(d.endpointId, n + 1);
    return n < perEndpoint;
  });
  if (oldest.length < limit || capped.length === oldest.length) return capped.map(toDue);
  const fair = await conn.deliveries
    .aggregate<{ _id: string; endpointId: string }>([
      { $match: claimableFilter(now) },
      { $sort: { nextAttemptAt: 1, _id: 1 } },
      {
        $group: {
          _id: '$endpointId',
          first: {
            $firstN: { n: perEndpoint, input: { _id: '$_id', nextAttemptAt: '$nextAttemptAt', orgId: '$orgId', env: '$env', endpointId: '$endpointId' } },
          },
        },
      },
      { $unwind: '$first' },
      { $replaceWith: '$first' },
      activeEndpointLookup(conn),
      { $match: { 'activeEndpoint.0': { $exists: true } } },
      { $sort: { nextAttemptAt: 1, _id: 1 } },
      { $limit: limit },
      { $project: { _id: 1, endpointId: 1 } },
    ])
    .toArray();
  return fair.map(toDue);
}

/** Finds the stranded deliveries (stranded.ts) among the first STRANDED_PEEK due and puts them right. */
async function repairStrandedAtHead(conn: MongoConnection, now: number): Promise<void> {
  const head = await conn.deliveries
    .aggregate<Stranded>([
      { $match: claimableFilter(now) },
      { $sort: { nextAttemptAt: 1, _id: 1 } },
      { $limit: STRANDED_PEEK },
      activeEndpointLookup(conn),
      { $match: { 'activeEndpoint.0': { $exists: false } } },
      { $project: { _id: 1, endpointId: 1, orgId: 1, env: 1 } },
    ])
    .toArray();
  if (head.length > 0) await repairStranded(conn, head, now);
}

function toDue(d: { _id: string; endpointId: string }): DueDelivery {
  return { id: d._id as DeliveryId, endpointId: d.endpointId as EndpointId };
}

/** Adds `activeEndpoint`: the delivery's endpoint when it exists in the same tenant and is active. */
function activeEndpointLookup(conn: MongoConnection): Document {
  return {
    $lookup: {
      from: conn.endpoints.collectionName,
      localField: 'endpointId',
      foreignField: '_id',
      let: { orgId: '$orgId', env: '$env' },
      pipeline: [{ $match: { status: 'active', $expr: { $and: [{ $eq: ['$orgId', '$$orgId'] }, { $eq: ['$env', '$$env'] }] } } }, { $project: { _id: 1 } }],
      as: 'activeEndpoint',
    },
  };
}

/**
 * Takes the lease of delivery `id` until `leaseUntil` when it is claimable at `now`.
 * The conditional update decides: of two dispatchers claiming one delivery, exactly one
 * matches the filter. The endpoint is read first so no lease is taken on a held delivery;
 * an endpoint paused after that read gets this one send, as a pause during a send would.
 * @returns the job, or null when the delivery is not claimable now.
 */
export async function claimDelivery(conn: MongoConnection, id: DeliveryId, now: number, leaseUntil: number): Promise<DeliveryJob | null> {
  const candidate = await conn.deliveries.findOne({ _id: id, ...claimableFilter(now) }, { projection: { orgId: 1, env: 1, endpointId: 1 } });
  if (candidate === null) return null;
  const tenant: Tenant = { orgId: candidate.orgId as OrgId, env: candidate.env as Environment };
  const endpoint = await conn.endpoints.findOne({ ...tenant, _id: candidate.endpointId, status: 'active' });
  if (endpoint === null) return null;
  const leased = await conn.deliveries.findOneAndUpdate(
    { _id: id, ...tenant, endpointId: candidate.endpointId, ...claimableFilter(now) },
    { $set: { leaseUntil, resend: false }, $inc: { leaseToken: 1 } },
    { returnDocument: 'after' },
  );
  if (leased === null) return null;
  const message = await conn.messages.findOne({ ...tenant, _id: leased.messageId }, { projection: { eventType: 1, payload: 1, createdAt: 1 } });
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
