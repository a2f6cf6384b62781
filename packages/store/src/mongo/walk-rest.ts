import type { Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { EndpointWalkDoc } from './documents.ts';
import { ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { scope } from './query.ts';

// A request that does the first batch of a part of an endpoint's walk (an ended hold's put-off
// deliveries, a dropped ordering's lanes) and leaves the rest to the walk job (endpoint-walk.ts).

/**
 * The request's first write, on the endpoint's walk document if there is one: a walk batch
 * running meanwhile conflicts at once, before the transaction's reads and writes.
 */
export async function touchWalk(conn: MongoConnection, session: ClientSession, endpointId: string): Promise<void> {
  const walk = P.walk(endpointId);
  await conn.endpointWalks.updateOne(walk.filter, { $inc: { version: 1 } }, { ...walk.options, session });
}

/** Leaves the rest of `part` to the endpoint's walk: one document by _id, made if there is none, in the caller's transaction. */
export async function leaveToWalk(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  part: Pick<EndpointWalkDoc, 'putOffUntil'> | Pick<EndpointWalkDoc, 'unlane'>,
): Promise<void> {
  const walk = P.walk(endpointId);
  await conn.endpointWalks.updateOne(
    walk.filter,
    { $set: part, $setOnInsert: { ...scope(t), hold: null, heldSince: null, failBefore: null } },
    { ...walk.options, session, upsert: true },
  );
}
