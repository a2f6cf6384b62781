import type { Tenant } from '@wirehook/core';
import type { MongoConnection } from './connection.ts';
import { refreshMessageStatuses } from './message-status.ts';
import { handOver } from './ordered-lanes.ts';
import { noteDue, type DueNote } from './due-queue.ts';
import { ENDPOINTS_PLANS as P } from './plans/endpoints.ts';
import { ON_PRIMARY } from './plans/plan.ts';

// Deliveries due whose endpoint is not active. MongoDB's snapshot transactions allow a write
// skew that SQLite's single writer does not: a message created while its endpoint is being
// paused, disabled or deleted reads the endpoint as active and commits a delivery the pause's
// (or delete's) walk has already gone past — nothing else would ever hold or fail it, and it
// would sit unheld in the due index. A sweep that finds an endpoint on its page not active
// (delivery-claim.ts) passes its first STRANDED_PEEK due deliveries here and looks at the
// endpoint again STRANDED_PEEK_INTERVAL_MS later; once no walk of the endpoint is left to do
// it, they are put right: held when the endpoint is paused (its resume releases them), failed
// with their messages when it is disabled or gone. (The other way round — a message that read the endpoint paused,
// committing a held delivery after the resume's walk ended — is held-recheck.ts's: the walk runs again later.)
// They are never part of `due`'s answer: deliveries of an endpoint whose walk is still running
// must never fill the page and hide every other tenant's due deliveries.

/** Due deliveries of an endpoint that is not active that one sweep passes to repairStranded at most. */
export const STRANDED_PEEK = 50;
/**
 * How long a sweep leaves an endpoint that is not active before it looks again, and how often
 * the healer runs (delivery-claim.ts): stranded deliveries are rare and may wait a few seconds
 * more without hiding anything, since a sweep's answer never includes them.
 */
export const STRANDED_PEEK_INTERVAL_MS = 5_000;

/** A due delivery of an endpoint that is not active, as `due` read it. */
export interface Stranded {
  _id: string;
  endpointId: string;
  orgId: string;
  env: Tenant['env'];
}

/** Holds or fails `stranded` by its endpoint's state, read again in one transaction per endpoint. */
export async function repairStranded(conn: MongoConnection, stranded: readonly Stranded[], now: number): Promise<void> {
  const byEndpoint = new Map<string, Stranded[]>();
  for (const d of stranded) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
  for (const [endpointId, of] of byEndpoint) {
    const t = { orgId: of[0]!.orgId, env: of[0]!.env } as Tenant;
    // A walk of the endpoint still pending holds or fails them itself, in its order: nothing
    // to write (read before any transaction, so a sweep behind a long walk costs one read).
    const walk = P.walk(endpointId);
    if ((await conn.endpointWalks.findOne(walk.filter, { ...walk.options, ...ON_PRIMARY, projection: { _id: 1 } })) !== null) continue;
    const due: DueNote[] = [];
    await conn.transaction(async (session) => {
      due.length = 0; // a transaction run again starts over
      // A write to the endpoint first: a pause, resume or delete racing this repair now
      // conflicts with it (one runs again on the other's result), rather than both committing
      // on a stale view — a delivery held for an endpoint resumed meanwhile would stay held.
      const ep = P.byId(t, endpointId);
      const endpoint = await conn.endpoints.findOneAndUpdate(
        ep.filter,
        { $inc: { strandedRepairs: 1 } },
        { ...ep.options, session, returnDocument: 'after', projection: { status: 1 } },
      );
      if (endpoint?.status === 'active') return;
      // A walk of the endpoint still pending holds or fails them itself, in its order.
      if ((await conn.endpointWalks.findOne(walk.filter, { ...walk.options, session, projection: { _id: 1 } })) !== null) return;
      // A sweep's page may hold deliveries of several months (one collection each).
      const messageIds: string[] = [];
      for (const [month, ids] of conn.idsByBucket(of.map((d) => d._id))) {
        const deliveries = conn.bucket(month).deliveries;
        const open = P.stranded(t, ids, now);
        if (endpoint?.status === 'paused') {
          await deliveries.updateMany(open.filter, { $set: { held: true } }, { ...open.options, session });
          continue;
        }
        const rows = await deliveries.find(open.filter, { ...open.options, session, projection: { messageId: 1, endpointId: 1, orderingKey: 1 } }).toArray();
        if (rows.length === 0) continue;
        const found = P.deliveriesByIds(rows.map((d) => d._id));
        await deliveries.updateMany(found.filter, { $set: { status: 'failed', nextAttemptAt: null } }, { ...found.options, session });
        // Due, so each ordered one was its lane's head: the lane moves on. Its next is left
        // unheld, so a later page finds it here too (a lane of a gone endpoint fails one a page).
        for (const d of rows) {
          const next = await handOver(conn, session, d, false);
          if (next?.due) due.push(next.due);
        }
        messageIds.push(...rows.map((d) => d.messageId));
      }
      if (messageIds.length > 0) await refreshMessageStatuses(conn, session, t, messageIds);
    });
    // After the commit (due-queue.ts): the lanes' next heads.
    await noteDue(conn, due);
  }
}
