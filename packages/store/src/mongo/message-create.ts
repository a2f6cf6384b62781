import { PlanLimitError, type ConsumerId, type DeliveryId, type Message, type Tenant } from '@wirehook/core';
import type { ClientSession } from 'mongodb';
import { acceptedMessage, newDeliveryId, type CreatedMessage, type NewMessage } from '../ports/message-port.ts';
import type { MongoConnection } from './connection.ts';
import type { DeliveryDoc, EndpointDoc, MessageDoc } from './documents.ts';
import { noteDue, type DueNote } from './due-queue.ts';
import { isDuplicateKey, isUnknownCommit } from './errors.ts';
import { FailureStreak } from './failure-streak.ts';
import { UNIQUE_INDEX } from './indexes.ts';
import { toMessage } from './mappers.ts';
import { payloadOf } from './message-body.ts';
import { pendingCounts, pendingStatuses } from './message-status.ts';
import { ensureMonth } from './month-buckets.ts';
import { type Month, monthOf, monthOfId, nextMonth } from './months.ts';
import { joinLane } from './ordered-lanes.ts';
import { ON_PRIMARY } from './plans/plan.ts';
import { MESSAGES_PLANS as P } from './plans/messages.ts';
import { counterValues, giveBack, takeCounts } from './usage-counters.ts';
import { scope } from './query.ts';

// MessageRepo.create: one transaction, so the idempotency lookup and the writes see one
// snapshot (the consumer and its endpoints are read before it, beside the count, and taken by
// its first run when every endpoint was active: readTargets). Two sends with one Idempotency-Key write one document in common (the key), so
// one of them hits a write conflict and is run again by the driver, now seeing the other's
// message.
//
// Usage counters are not written in that transaction: every live send of an org increments
// one counter document, and as a write of every transaction it made all of an org's
// concurrent sends conflict and retry (each retry re-inserting a payload of up to 1 MB).
// Instead a send first takes its count with one atomic single-document increment of one of
// the counter's shards (no transaction, no conflict; usage-counters.ts), refuses and gives it
// back when that passed the limit, and gives it back too when the message is not written (an
// error, or an idempotent replay). The limit is never passed. A give-back that could not be
// sent (a saturated pool, an election) is owed and written later (usage-counters.ts); a process
// killed between the increment and the commit, or a give-back whose outcome is unknown, leaves
// the count one high.
//
// Every delivery the send makes due (neither held nor waiting in its lane, and a lane's waiting
// delivery a join made the head) is told to the due queue (noteDue) after the commit: never in
// the transaction (due-queue.ts says why); a process killed in between is healed there.
//
// The message, its body and its deliveries go to the month of the message's id (months.ts), one
// bucket: its deliveries' ids are stamped with its createdAt (newDeliveryId), so they must be
// of the same month as its id, which createMessage checks first.

// A send that creates a consumer can lose the race for its external id to another send
// that committed it after this one's snapshot; running again then finds that consumer.
const CONSUMER_RACE_TRIES = 3;

/**
 * Writes a message with its deliveries and counters, or returns the idempotent original.
 * @returns the message written, or the earlier one with its key (`created: false`).
 * @throws PlanLimitError when a counter is at its limit (nothing written).
 * @throws Error when the message's id and createdAt are of different months (a bug of the caller).
 */
export async function createMessage(conn: MongoConnection, t: Tenant, input: NewMessage): Promise<CreatedMessage> {
  checkMonth(input);
  // Its month's collections with their indexes (a cached check: made ahead, unless a clock is
  // far off); an insert in the transaction would make a missing one without them.
  await ensureMonth(conn, conn.bucketMonthOf(input.id));
  // A replay is answered without counting (at the limit too): look before taking a count — at
  // the key's document (one read by _id; the months' lookups, 2–3 for every new key, were made
  // here and again in the transaction). Whichever way this goes, the transaction's lookup decides.
  if (input.idempotencyKey !== null && (await keyTakenInWindow(conn, t, input, input.idempotencyKey))) {
    // The replay alone: should the message have gone (retention dropped its month while its key's
    // document lived on), the send is counted below like any other — not written here uncounted.
    const replay = await conn.transaction((session) => replayInTransaction(conn, session, t, input));
    if (replay !== null) return replay;
  }
  // Its consumer and endpoints, read beside its count (two round trips each, at once; readTargets) — unless its
  // counter was refused a moment ago: a send at its plan's limit pays its count alone.
  const targetsRead = refusedLately(conn, input) ? null : readTargetsOrNone(conn, t, input);
  const { taken, values } = await takeCounts(conn, input.counters, input.createdAt).catch((err: unknown) => {
    if (err instanceof PlanLimitError) noteRefused(conn, input);
    throw err;
  });
  let written = false;
  // A commit the driver could not confirm may have stored the message: its count stays taken
  // (one high at most, and the limit never passed) rather than given back.
  let maybeWritten = false;
  try {
    // Failed (an election, a slow primary): the transaction reads them, as the driver tries it again.
    let unused = await targetsRead;
    for (let tries = 1; ; tries++) {
      try {
        // Its first run only: a run again — the driver's, after a write conflict or a failover — reads in its own snapshot.
        const { created, due } = await conn.transaction((session) => {
          const known = unused;
          unused = null;
          return createInTransaction(conn, session, t, input, values, known);
        });
        written = created.created;
        // Stored: a failing noteDue must not answer an error for a message that was written
        // (the sender would send it again). The healer (delivery-claim.ts) finds its deliveries.
        // The entries before the answer, their tenants just after it (a round trip less: due-queue.ts, TenantWriter).
        await noteDue(conn, due, { tenantsSoon: true }).catch(() => undefined);
        return created;
      } catch (err) {
        if (tries < CONSUMER_RACE_TRIES && isDuplicateKey(err, UNIQUE_INDEX.consumerExternalId)) continue;
        maybeWritten = isUnknownCommit(err);
        throw err;
      }
    }
  } finally {
    if (!written && !maybeWritten) await giveBack(conn, taken, input.createdAt);
  }
}

async function createInTransaction(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  input: NewMessage,
  taken: Record<string, number>,
  /** The consumer and its endpoints read before the transaction (readTargets); null: read here (a consumer new to the send made here). */
  known: Targets | null,
): Promise<{ created: CreatedMessage; due: DueNote[] }> {
  const replay = await replayInTransaction(conn, session, t, input);
  if (replay !== null) return { created: replay, due: [] };
  const counters = await readCounters(conn, session, input, taken);
  // The key is taken first of the writes: a racing send with the same key conflicts here,
  // before either has done more work.
  if (input.idempotencyKey !== null) await takeIdempotencyKey(conn, session, t, input, input.idempotencyKey);

  const consumer = known?.consumer ?? (await findOrCreateConsumer(conn, session, t, input));
  // The endpoints read before, when every one was active: a held delivery is decided in the snapshot only, as a resume's
  // recheck reckons (held-recheck.ts); a stale `active` is mended once its delivery is due (readTargets). None for a
  // consumer made here.
  const targets = known?.endpoints.every((e) => e.status === 'active')
    ? known.endpoints
    : consumer.created
      ? []
      : await matchingEndpoints(conn, session, t, consumer.id, input.eventType, input.onlyEndpointId);
  const message = acceptedMessage(input, consumer.id, targets.length);
  const { id: _id, payload, ...fields } = message;
  // Ids first: the message's status map names its deliveries (message-status.ts).
  const deliveryIds = targets.map(() => newDeliveryId(input));
  const doc: MessageDoc = {
    _id,
    ...scope(t),
    ...fields,
    consumerExternalId: consumer.externalId,
    counts: pendingCounts(targets.length),
    statuses: pendingStatuses(deliveryIds),
  };
  const bucket = conn.bucketOf(_id);
  // The writes other sends may make too come first — the lanes' — so a send that conflicts on
  // them is run again before it has inserted a body of up to 1 MB.
  const deliveries: DeliveryDoc[] = [];
  const due: DueNote[] = [];
  for (const [i, endpoint] of targets.entries()) {
    const delivery = pendingDelivery(t, message, endpoint, deliveryIds[i]!);
    // An ordered endpoint's delivery joins its key's lane; behind an open head it waits.
    const key = endpoint.ordering === 'key' ? (message.orderingKey ?? null) : null;
    if (key !== null) {
      const lane = await joinLane(conn, session, t, endpoint._id, key, delivery._id, delivery.held === true, message.createdAt);
      Object.assign(delivery, { orderingKey: key, sequence: lane.sequence, laneWait: lane.wait });
      if (lane.due !== null) due.push(lane.due);
    }
    deliveries.push(delivery);
  }
  // A held delivery waits for the resume's walk. One committed after a resume whose walk had
  // passed (this read the endpoint paused, before the resume) is released when that walk runs
  // again, minutes later (held-recheck.ts): nothing here is written that a resume writes too.
  await bucket.messages.insertOne(doc, { session });
  await bucket.messageBodies.insertOne({ _id, ...scope(t), payload }, { session });
  if (deliveries.length > 0) await bucket.deliveries.insertMany(deliveries, { session });
  // No claim at create here (the port allows that): every delivery neither held nor waiting in
  // its lane is due, and intake wakes the dispatchers for it.
  const dueNow = deliveries.filter((d) => !d.held && !d.laneWait);
  for (const d of dueNow) due.push({ orgId: t.orgId, env: t.env, endpointId: d.endpointId, month: bucket.month, dueAt: message.createdAt });
  const dueDeliveryIds = dueNow.map((d) => d._id as DeliveryId);
  return {
    created: { message, deliveryIds: deliveries.map((d) => d._id as DeliveryId), dueDeliveryIds, created: true, counters },
    due,
  };
}

/** The answer to a replay (the newest message with the key in its window, created: false), or null when there is none. */
async function replayInTransaction(conn: MongoConnection, session: ClientSession, t: Tenant, input: NewMessage): Promise<CreatedMessage | null> {
  const earlier = await findIdempotent(conn, session, t, input);
  if (earlier === null) return null;
  // Its deliveries are in its month (its id's), which may be the month before this send's.
  const q = P.deliveriesOf(t, [earlier._id]);
  const deliveries = await conn
    .bucketOf(earlier._id)
    .deliveries.find(q.filter, { ...q.options, session, projection: { _id: 1 } })
    .toArray();
  const deliveryIds = deliveries.map((d) => d._id as DeliveryId);
  const message = toMessage(earlier, await payloadOf(conn, t, earlier, session));
  return { message, deliveryIds, dueDeliveryIds: [], created: false, counters: await readCounters(conn, session, input) };
}

/** A new delivery of `message` to `endpoint`: pending, due at the message's creation. */
function pendingDelivery(t: Tenant, message: Message, endpoint: { _id: string; url: string; status: string }, id: DeliveryId): DeliveryDoc {
  return {
    _id: id,
    ...scope(t),
    messageId: message.id,
    endpointId: endpoint._id,
    url: endpoint.url,
    status: 'pending',
    attemptCount: 0,
    policyAttempts: 0,
    nextAttemptAt: message.createdAt,
    // Free: due at its next attempt (the due queue's key, documents.ts).
    dueAt: message.createdAt,
    manual: false,
    leaseUntil: null,
    // A paused endpoint holds it: out of the due index until the endpoint is resumed.
    held: endpoint.status !== 'active',
    orderingKey: null,
    sequence: null,
    laneWait: false,
    createdAt: message.createdAt,
    lastAttemptAt: null,
  };
}

/**
 * The message's id and createdAt are of one month: its deliveries' ids are made from its
 * createdAt, and the bucket from its id, so apart they would be filed in another month than it.
 * @throws Error naming both months otherwise.
 */
function checkMonth(input: Pick<NewMessage, 'id' | 'createdAt'>): void {
  const created = monthOf(input.createdAt);
  const ofId = monthOfId(input.id);
  if (created !== ofId) throw new Error(`message ${input.id}: its id is of month ${ofId}, its createdAt (${input.createdAt}) of month ${created}`);
}

/**
 * Whether the key's document (written in the transaction of each message with the key) names a
 * message created at or after `idempotencySince`: one read by _id. Its TTL deletes it once its
 * window has passed by the server's clock; a document the monitor has not deleted yet is judged
 * by its `createdAt`. A wrong guess costs a count taken and given back (a replay the document
 * missed) or a transaction more (a message retention dropped: then counted like a new send): the
 * lookup in a transaction is what answers.
 */
export async function keyTakenInWindow(conn: MongoConnection, t: Tenant, input: Pick<NewMessage, 'idempotencySince'>, key: string): Promise<boolean> {
  const q = P.idempotencyKey(t, key);
  // On the primary: a lagging secondary would miss a key taken a moment ago, and a replay at the plan's limit be refused.
  const doc = await conn.idempotencyKeys.findOne(q.filter, { ...q.options, ...ON_PRIMARY, projection: { createdAt: 1 } });
  return doc !== null && doc.createdAt >= input.idempotencySince;
}

/**
 * The tenant's newest message with the key created at or after `idempotencySince`: the months
 * it may be in (idempotencyMonths), the first found. (Two in the window only after a clock
 * stepped back past the end of the first's window: the key has answered with the second since.)
 */
async function findIdempotent(conn: MongoConnection, session: ClientSession | undefined, t: Tenant, input: NewMessage): Promise<MessageDoc | null> {
  if (input.idempotencyKey === null) return null;
  // messages_idempotency in its order (createdAt): no in-memory sort. The key's document
  // serialises the key's sends, so no two of its messages share a createdAt to tie on.
  const q = P.idempotent(t, input.idempotencyKey, input.idempotencySince);
  for (const month of idempotencyMonths(await conn.months(), input)) {
    const found = await conn.bucket(month).messages.findOne(q.filter, { ...q.options, session });
    if (found !== null) return found;
  }
  return null;
}

/**
 * The months to look in, of those that exist (`months`, ascending): the send's first (where a
 * replay's message nearly always is: one lookup), then the ones before it back to
 * `idempotencySince`'s, newest first, then the one after (empty but for an intake whose clock
 * ran a little ahead — looked in last, though a message there would be the newest: that takes
 * a clock ahead and one stepped back at once). The intake's window of 24 h spans at most two
 * months, plus the next: ≤ 3 lookups.
 */
export function idempotencyMonths(months: readonly Month[], input: Pick<NewMessage, 'idempotencySince' | 'createdAt'>): Month[] {
  const from = monthOf(input.idempotencySince);
  const current = monthOf(input.createdAt);
  const next = nextMonth(current);
  const before = months.filter((month) => month >= from && month <= current).reverse();
  return months.includes(next) ? [...before, next] : before;
}

/**
 * How long a key's document outlives its window: its TTL runs by the server's clock, the window
 * by the intake's, and a document gone early makes a replay look new before its transaction
 * (keyTakenInWindow judges by `createdAt`, so a later expiry changes no answer).
 */
export const KEY_TTL_MARGIN_MS = 3_600_000;

/** When a key's document may go (its TTL index): the end of the send's window, and KEY_TTL_MARGIN_MS more. */
export function keyExpiresAt(input: Pick<NewMessage, 'createdAt' | 'idempotencySince'>): Date {
  return new Date(input.createdAt + Math.max(0, input.createdAt - input.idempotencySince) + KEY_TTL_MARGIN_MS);
}

async function takeIdempotencyKey(conn: MongoConnection, session: ClientSession, t: Tenant, input: NewMessage, key: string): Promise<void> {
  const q = P.idempotencyKey(t, key);
  await conn.idempotencyKeys.updateOne(
    q.filter,
    { $set: { messageId: input.id, createdAt: input.createdAt, expiresAt: keyExpiresAt(input) } },
    { ...q.options, session, upsert: true },
  );
}

async function findOrCreateConsumer(
  conn: MongoConnection,
  session: ClientSession,
  t: Tenant,
  input: NewMessage,
): Promise<{ id: ConsumerId; externalId: string; created: boolean }> {
  const externalId = input.consumerExternalId;
  const q = P.consumerByExternalId(t, externalId);
  const found = await conn.consumers.findOne(q.filter, { ...q.options, session, projection: { _id: 1 } });
  if (found !== null) return { id: found._id as ConsumerId, externalId, created: false };
  await conn.consumers.insertOne({ _id: input.newConsumerId, ...scope(t), externalId, name: null, createdAt: input.createdAt, endpointCount: 0 }, { session });
  return { id: input.newConsumerId, externalId, created: true };
}

/** The endpoint fields a send writes its deliveries from. */
type TargetEndpoint = Pick<EndpointDoc, '_id' | 'url' | 'status' | 'ordering'>;

/** A send's consumer and the endpoints it goes to. */
interface Targets {
  consumer: { id: ConsumerId; externalId: string; created: boolean };
  endpoints: TargetEndpoint[];
}

/**
 * The consumer and its matching endpoints, before the transaction, on the primary (a lagging
 * secondary would miss an endpoint made a moment before the send); null when the consumer does
 * not exist yet (the transaction makes it). The consumer as a majority holds it: one a failover
 * rolls back (a racing send's, not yet confirmed) must not be named by this send's message; one
 * not confirmed yet is found, or made, in the transaction. The send writes neither document, so a
 * pause, a delete or a disabling racing it was no conflict in the transaction either. The
 * transaction's first run takes the endpoints only when every one is active (createInTransaction):
 * a stale `active` — a pause since, a write a failover rolled back — is mended once the delivery
 * is due (the sweep's stranded repair holds it, or fails it with its endpoint: stranded.ts; one
 * waiting in a lane has its hold decided when it is promoted), where a stale `paused` would hold a
 * delivery no walk comes back for. An ordering changed after the read: dropped, the send joins a
 * lane the drop let go of (as its head, or behind a head the lane still names until the unlane
 * walk frees it); turned on, the send goes unlaned beside the lane — as with a read in the
 * snapshot, over a window two round trips longer.
 */
async function readTargets(conn: MongoConnection, t: Tenant, input: NewMessage): Promise<Targets | null> {
  const q = P.consumerByExternalId(t, input.consumerExternalId);
  const found = await conn.consumers.findOne(q.filter, { ...q.options, ...ON_PRIMARY, readConcern: { level: 'majority' }, projection: { _id: 1 } });
  if (found === null) return null;
  const consumer = { id: found._id as ConsumerId, externalId: input.consumerExternalId, created: false };
  return { consumer, endpoints: await matchingEndpoints(conn, undefined, t, consumer.id, input.eventType, input.onlyEndpointId) };
}

/** A send's reads before its transaction failing (told once a streak). */
const readsFailing = new FailureStreak("a send's reads before its transaction failed (read in it instead)");

/**
 * readTargets, or null when it failed: the transaction reads instead, and the streak's first
 * failure is told — one that always fails would make every send two round trips longer, unseen.
 */
async function readTargetsOrNone(conn: MongoConnection, t: Tenant, input: NewMessage): Promise<Targets | null> {
  try {
    const targets = await readTargets(conn, t, input);
    readsFailing.succeeded(conn);
    return targets;
  } catch (err) {
    readsFailing.failed(conn, err);
    return null;
  }
}

/**
 * How long a send whose counter was refused skips the reads beside its count, by counter key and
 * connection (a store's own: several in one process share nothing); REFUSED_KEPT keys at most.
 */
const REFUSED_FOR_MS = 1_000;
const REFUSED_KEPT = 10_000;
const refusedUntil = new WeakMap<MongoConnection, Map<string, number>>();

function refusedOf(conn: MongoConnection): Map<string, number> {
  let refused = refusedUntil.get(conn);
  if (refused === undefined) refusedUntil.set(conn, (refused = new Map()));
  return refused;
}

/** Whether a counter this send takes was refused within REFUSED_FOR_MS (by the process's monotonic clock). */
function refusedLately(conn: MongoConnection, input: Pick<NewMessage, 'counters'>): boolean {
  const refused = refusedOf(conn);
  const now = performance.now();
  return input.counters.some((c) => c.increment && (refused.get(c.key) ?? 0) > now);
}

function noteRefused(conn: MongoConnection, input: Pick<NewMessage, 'counters'>): void {
  const refused = refusedOf(conn);
  if (refused.size >= REFUSED_KEPT) refused.clear();
  for (const c of input.counters) if (c.increment) refused.set(c.key, performance.now() + REFUSED_FOR_MS);
}

/** Endpoints of the consumer that take `eventType` and are not disabled (a paused one holds its delivery). */
async function matchingEndpoints(
  conn: MongoConnection,
  session: ClientSession | undefined,
  t: Tenant,
  consumerId: ConsumerId,
  eventType: string,
  onlyEndpointId?: string,
): Promise<TargetEndpoint[]> {
  // A trial goes to the one endpoint asked for, whatever event types it takes. Either way the
  // order is the index's (_id): ≤ MAX_ENDPOINTS_PER_CONSUMER endpoints, never sorted in memory.
  const q = onlyEndpointId === undefined ? P.matchingEndpoints(t, consumerId, eventType) : P.trialEndpoint(t, consumerId, onlyEndpointId);
  // Outside a transaction on the primary (readTargets); in one, the transaction's own.
  const where = session === undefined ? ON_PRIMARY : { session };
  return conn.endpoints.find(q.filter, { ...q.options, ...where, projection: { _id: 1, url: 1, status: 1, ordering: 1 } }).toArray();
}

/**
 * Each counter's value at the send (0 when absent or over): `known`'s as given — the values the
 * send's own increments read (takeCounts), which stood over any read here — and the others read
 * in the transaction. A live send's one counter is taken: no read, a round trip less inside it.
 */
export async function readCounters(
  conn: MongoConnection,
  session: ClientSession,
  input: Pick<NewMessage, 'counters' | 'createdAt'>,
  known: Record<string, number> = {},
): Promise<Record<string, number>> {
  const toRead = input.counters.map((c) => c.key).filter((key) => !Object.hasOwn(known, key));
  return { ...(await counterValues(conn, toRead, input.createdAt, session)), ...known };
}
