import type { Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import type { MongoConnection } from './connection.ts';
import type { EndpointWalkDoc } from './documents.ts';
import { ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { scope } from './query.ts';
import { type HoldEnds, holdEndsIn } from '../hold-ends.ts';

// A request that does the first batch of a part of an endpoint's walk (an ended hold's put-off
// deliveries, a dropped ordering's lanes) and leaves the rest to the walk job (endpoint-walk.ts).

/**
 * The request's first write, on the endpoint's walk document if there is one: a walk batch
 * running meanwhile conflicts at once, before the transaction's reads and writes.
 * @returns the hold ends the walk has (hold-ends.ts), none without a walk.
 */
export async function touchWalk(conn: MongoConnection, session: ClientSession, endpointId: string): Promise<HoldEnds> {
  const walk = P.walk(endpointId);
  const doc = await conn.endpointWalks.findOneAndUpdate(
    walk.filter,
    { $inc: { version: 1 } },
    { ...walk.options, session, projection: { putOffUntil: 1, putOffMore: 1 }, returnDocument: 'after' },
  );
  return holdEndsOf(doc);
}

/**
 * A walk document's hold ends (none for no document). Read as one list, so ends an older
 * replica left behind a `putOffUntil` it cleared (it knows no `putOffMore`) are still walked.
 */
export function holdEndsOf(doc: Pick<EndpointWalkDoc, 'putOffUntil' | 'putOffMore'> | null): HoldEnds {
  return holdEndsIn(doc?.putOffUntil ?? null, doc?.putOffMore ?? []);
}

/** Hold ends as a walk document keeps them: `putOffMore` null when none waits behind the walked end. */
export function holdEndFields(ends: HoldEnds): Pick<EndpointWalkDoc, 'putOffUntil' | 'putOffMore'> {
  return { putOffUntil: ends.putOffUntil, putOffMore: ends.putOffMore.length === 0 ? null : [...ends.putOffMore] };
}

/** Leaves the rest of `part` to the endpoint's walk: one document by _id, made if there is none, in the caller's transaction. */
export async function leaveToWalk(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  endpointId: string,
  part: Pick<EndpointWalkDoc, 'putOffUntil' | 'putOffMore'> | Pick<EndpointWalkDoc, 'unlane'>,
): Promise<void> {
  const walk = P.walk(endpointId);
  await conn.endpointWalks.updateOne(
    walk.filter,
    { $set: part, $setOnInsert: { ...scope(t), hold: null, heldSince: null, failBefore: null } },
    { ...walk.options, session, upsert: true },
  );
}
