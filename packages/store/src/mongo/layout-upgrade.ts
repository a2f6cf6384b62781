import { randomUUID } from 'node:crypto';
import { unlessAborted } from '@wirehook/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDuplicateKey, isFailoverError } from './errors.ts';
import type { Collection, Db, Document, UpdateResult } from 'mongodb';
import { COLLECTIONS, MONTHLY, MONTHS_DOC, type MongoConnection } from './connection.ts';
import { lowerTenants, nextEndpointFirstDue, noteDue } from './due-queue.ts';
import { ensureBucketIndexes, INDEXES } from './indexes.ts';
import { MongoJobLeaseRepo } from './job-lease-repo.ts';
import { monthOf } from './months.ts';
import { DELIVERIES_PLANS } from './plans/deliveries.ts';
import { MONTHS_PLANS } from './plans/months.ts';
import { ON_PRIMARY } from './plans/plan.ts';
import { ENDPOINTS_PAGE, UPGRADE_BATCH, UPGRADE_PLANS } from './plans/upgrade.ts';
import type { MetaDoc } from './documents.ts';
import { UpgradeLease } from './upgrade-lease.ts';

// The layout of the store's documents and indexes, versioned in `meta` (`_id: 'schema'`). An
// ordinary start reads that one document. A start that finds an older layout upgrades it once:
// one process at a time (the `schema-upgrade` job lease), in batches by _id range (each a
// bounded update, the lease renewed between them), telling its progress and recording it in the
// layout's document (`upgrade`), so that a start that takes over after a crash or a stop goes on
// from the last batch done rather than the first (every step is idempotent either way); the others wait for
// the version. Not a rolling upgrade: a process of the older layout would keep writing the
// older shape (docs/operations.md, "Upgrades": stop every process first).

/** The layout this version reads and writes. */
export const SCHEMA_VERSION = 5;

const LEASE = 'schema-upgrade';
const LEASE_MS = 120_000;
/** How often a process waiting for another's upgrade asks for the lease again. */
export const UPGRADE_ASK_AGAIN_MS = 2_000;
/** How long a process waits for another's upgrade before it gives up with an error (a large upgrade takes hours). */
const WAIT_MS = 24 * 3600_000;

/**
 * Upgrades `conn`'s database to SCHEMA_VERSION if it is older, then returns. `signal` (the
 * process asked to stop while it starts) ends the upgrade at its next batch, or at once while
 * index builds run (the server goes on with them; the next upgrade waits for them), and the
 * lease is given up: the next process starts over at once, not LEASE_MS later.
 * @throws Error when a newer Wirehook wrote it, or another process's upgrade has not ended within WAIT_MS;
 * `signal`'s reason when it was aborted.
 */
export async function upgradeLayout(conn: MongoConnection, where: string, log: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const meta = conn.meta;
  const holder = randomUUID();
  const lease = new UpgradeLease(new MongoJobLeaseRepo(conn), { name: LEASE, holder, leaseMs: LEASE_MS, log });
  const started = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const q = MONTHS_PLANS.meta('schema');
    const schema = await unlessAborted(meta.findOne(q.filter, { ...q.options, ...ON_PRIMARY }), signal);
    if (schema !== null && schema.version === SCHEMA_VERSION) return;
    if (schema !== null && (schema.version ?? 0) > SCHEMA_VERSION) {
      throw newerLayout(where, schema.version);
    }
    // Given up when the upgrade ends or fails (this start then fails with the error): another
    // need not wait for the lease to run out.
    const upgraded = await lease
      .runIfTaken(async (renewLease) => {
        // Every step renews between its batches: where a stop asked meanwhile ends it.
        const renew = async () => {
          signal?.throwIfAborted();
          // A renewal asked again through an election (RENEW_TRIES) would outlast a stop's deadline: the stop ends the wait.
          await unlessAborted(renewLease(), signal);
        };
        // A stop asked while the lease was taken: nothing begun under it.
        signal?.throwIfAborted();
        await renewedThroughout(renew, signal, async () => {
          // Read again under the lease: another process may have upgraded it, and given the lease up, since.
          const current = await unlessAborted(meta.findOne(q.filter, { ...q.options, ...ON_PRIMARY }), signal);
          if (current?.version === SCHEMA_VERSION) return;
          if ((current?.version ?? 0) > SCHEMA_VERSION) throw newerLayout(where, current?.version);
          // Layout 1 kept no version: whether the single collections exist says if there is data to
          // adopt. Without a version or them, the database is new: nothing to migrate (its single
          // collections, whose old indexes a migration drops, do not exist: "ns not found").
          // Every read of the upgrade on the primary, whatever MONGODB_URL's readPreference (ON_PRIMARY):
          // its collections, the legacy month's choice, the months and the due queue's backfill alike.
          const primary = conn.onPrimary();
          const db = primary.db;
          const single = await unlessAborted(db.listCollections({ name: { $in: [...MONTHLY] } }, { nameOnly: true }).toArray(), signal);
          const fresh = current === null && single.length === 0;
          if (fresh) log(`MongoDB at ${where}: a new database, given layout ${SCHEMA_VERSION}`);
          else log(`MongoDB at ${where}: upgrading the layout from ${current?.version ?? 1} to ${SCHEMA_VERSION} (once; other processes wait)`);
          const from = current?.version ?? 1;
          // Layouts 1–2 only: layout 3 has these fields and indexes already.
          if (!fresh && from < 3) {
            const progress = new UpgradeProgress(meta, from, current?.upgrade, holder, { log, signal, renew });
            // The record is this process's before any step: one that stalled past its lease and
            // wakes now finds it taken at its next record, not only after this one's first batch.
            await progress.claim();
            await migrateDocuments(db, progress, renew, log, signal);
          }
          if (single.length > 0) await adoptSingleCollections(primary, Date.now(), renew, log, signal);
          // Layout 4 kept the endpoints' entries already: only the tenants' bounds are new (a walk of
          // every endpoint again would be 3 round trips an endpoint and month, with every process stopped).
          if (from < 4) await backfillDueQueue(primary, renew, signal);
          await backfillDueTenants(primary, renew, signal);
          // The version, and the record of the batches taken away in the same write.
          const v = UPGRADE_PLANS.layout();
          const version = { $max: { version: SCHEMA_VERSION }, $set: { at: Date.now() }, $unset: { upgrade: '' as const } };
          await confirmed('the version', () => meta.updateOne(v.filter, version, { ...v.options, upsert: true }), { log, signal, renew });
          log(`MongoDB at ${where}: layout ${SCHEMA_VERSION} in place`);
        });
      }, signal)
      .catch((err: unknown) => {
        // Its lease had run out (a stall) and another finished the upgrade: read the version again.
        if (!(err instanceof UpgradedMeanwhile)) throw err;
        log(`MongoDB at ${where}: ${err.message}`);
        return 'meanwhile' as const;
      });
    if (upgraded === 'meanwhile') continue;
    if (upgraded) return;
    if (Date.now() - started > WAIT_MS) throw new Error(`MongoDB at ${where}: another process's layout upgrade has not ended in ${WAIT_MS / 3_600_000} hours`);
    // Aborted, the wait rejects with the stop's own reason (timers' AbortError only wraps it),
    // having given up the lease in case a take whose outcome was unknown stood after all (it is
    // ended only by this holder: another's stays).
    await sleep(UPGRADE_ASK_AGAIN_MS, undefined, signal === undefined ? undefined : { signal }).catch(async (err: unknown) => {
      if (signal?.aborted) await lease.release();
      signal?.throwIfAborted();
      throw err;
    });
  }
}

function newerLayout(where: string, version: unknown): Error {
  return new Error(`MongoDB at ${where} holds layout ${version}, written by a newer Wirehook; this one reads layout ${SCHEMA_VERSION}`);
}

/**
 * Brings documents of an earlier layout to this one, batch by batch over _id ranges (each
 * batch reads UPGRADE_BATCH ids from the _id index, then updates that range; every step is
 * idempotent, so a crash part-way repeats work, never undoes it; `progress` records each batch
 * done, and an upgrade taking over goes on after it):
 * - deliveries: `held` (open ones of an endpoint that is not active), `laneWait`, and
 *   `dueAt` (the next attempt, or the lease's end while leased);
 * - ordered lanes: `lastUsedAt` (their retention);
 * - finished alert notices: `doneAt` (their TTL index);
 * then drops the indexes this layout replaced. (Layouts before 4 kept messages, bodies,
 * deliveries and attempts in one collection each, under the family's name: moveToMonths.)
 */
async function migrateDocuments(
  db: Db,
  progress: UpgradeProgress,
  renew: () => Promise<void>,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  const step = { progress, renew, signal, log };
  // An endpoint that is not active holds its open deliveries (holdOpenOf), rather than a list of
  // every such endpoint in each batch. The endpoints a page at a time in _id order (no cursor
  // kept open across the updates: one would die idle or in a failover), the last one read
  // recorded after each page, and within a page the last hold (holdOpenOf).
  const endpoints = db.collection(COLLECTIONS.endpoints);
  const deliveries = db.collection(COLLECTIONS.deliveries);
  // The hold's walk reads this layout's index, which layouts before it may lack on their single
  // collection: built first (adoptSingleCollections would build it moments later all the same).
  // A stop does not wait for the build (the server goes on with it; the next start's waits);
  // the lease is renewed meanwhile (renewedThroughout) and once more after it.
  await unlessAborted(deliveries.createIndexes(INDEXES[COLLECTIONS.deliveries]!.filter((i) => i.name === HOLD_INDEX)), signal);
  // A build that outlasted a lease taken over meanwhile ends the upgrade here, before any hold.
  await renew();
  const recorded = holdRecorded(progress.after(HOLDING));
  // Deliveries read by holds since the last record: an endpoint's hold is recorded once these
  // reach a page's worth (or it took more than a page), not each one — a hundred thousand disabled
  // endpoints with a delivery or two would be as many majority writes — so a takeover reads at
  // most about UPGRADE_BATCH of them again (plus a seek per endpoint without any).
  let unrecorded = 0;
  for (let after = progress.after('endpoints'); ; ) {
    const q = UPGRADE_PLANS.endpointsPage(after);
    const page = await unlessAborted(
      endpoints
        .find(q.filter, { ...q.options, ...ON_PRIMARY, projection: { _id: 1, status: 1, orgId: 1, env: 1 } })
        .limit(ENDPOINTS_PAGE)
        .toArray(),
      signal,
    );
    if (page.length === 0) break;
    for (const e of page) {
      const id = String(e._id);
      if (e['status'] === 'active') continue;
      // Held before a takeover (the ids of a page come in order): done, or gone on from where its walk was recorded.
      if (recorded !== null && id < recorded.endpointId) continue;
      const from = recorded?.endpointId === id ? recorded.after : null;
      if (from === 'all') continue;
      // Heard between two endpoints' holds, not only between pages: a page may hold a thousand of them.
      signal?.throwIfAborted();
      const hold = await holdOpenOf(deliveries, { orgId: String(e['orgId']), env: String(e['env']) }, id, from, step);
      unrecorded += hold.read;
      if (hold.pages > 1 || unrecorded >= UPGRADE_BATCH) {
        await progress.save(HOLDING, `${id}@all`);
        unrecorded = 0;
      }
    }
    after = String(page[page.length - 1]!._id);
    await progress.save('endpoints', after);
    await renew();
  }
  // Each step's two sendings written out (its plans bound where they are sent: plan-collections.test.ts reads them).
  const brought = await inBatches('deliveries', step, {
    ids: (after) => {
      const q = UPGRADE_PLANS.deliveryIds(after);
      return deliveries
        .find(q.filter, { ...q.options, ...ON_PRIMARY, projection: ID_ONLY })
        .limit(UPGRADE_BATCH)
        .toArray();
    },
    update: (after, last) => {
      const b = UPGRADE_PLANS.deliveriesBatch(after, last);
      const fields = {
        held: { $ifNull: ['$held', false] },
        laneWait: { $ifNull: ['$laneWait', false] },
        dueAt: { $ifNull: ['$dueAt', { $max: [{ $ifNull: ['$nextAttemptAt', 0] }, { $ifNull: ['$leaseUntil', 0] }] }] },
      };
      return deliveries.updateMany(b.filter, [{ $set: fields }], b.options);
    },
  });
  log(`MongoDB layout upgrade: ${brought} open deliveries brought up to date`);
  const deliveryLanes = db.collection(COLLECTIONS.deliveryLanes);
  await inBatches('lanes', step, {
    ids: (after) => {
      const q = UPGRADE_PLANS.laneIds(after);
      return deliveryLanes
        .find(q.filter, { ...q.options, ...ON_PRIMARY, projection: ID_ONLY })
        .limit(UPGRADE_BATCH)
        .toArray();
    },
    update: (after, last) => {
      const b = UPGRADE_PLANS.lanesBatch(after, last);
      return deliveryLanes.updateMany(b.filter, [{ $set: { lastUsedAt: { $toLong: '$$NOW' } } }], b.options);
    },
  });
  const alertNotices = db.collection(COLLECTIONS.alertNotices);
  await inBatches('notices', step, {
    ids: (after) => {
      const q = UPGRADE_PLANS.noticeIds(after);
      return alertNotices
        .find(q.filter, { ...q.options, ...ON_PRIMARY, projection: ID_ONLY })
        .limit(UPGRADE_BATCH)
        .toArray();
    },
    update: (after, last) => {
      const b = UPGRADE_PLANS.noticesBatch(after, last);
      return alertNotices.updateMany(b.filter, [{ $set: { doneAt: { $toDate: '$createdAt' } } }], b.options);
    },
  });
  await unlessAborted(renumberAlertEvents(db), signal);
  const replaced: [string, string[]][] = [
    [
      COLLECTIONS.deliveries,
      [
        'deliveries_due',
        'deliveries_due_unheld',
        'deliveries_endpoint_due',
        'deliveries_due_head',
        'deliveries_endpoint_due_head',
        'deliveries_endpoint_failed_since',
      ],
    ],
    [COLLECTIONS.endpoints, ['endpoints_failing', 'endpoints_failing_org']],
    [COLLECTIONS.deliveryLanes, ['delivery_lanes_endpoint']],
    [COLLECTIONS.recoveries, ['recoveries_running']],
  ];
  for (const [collection, names] of replaced) {
    for (const old of names) {
      const dropped = db
        .collection(collection)
        .dropIndex(old)
        .catch((err: unknown) => {
          // Gone already, or its collection never made (a layout-2 database without one of them).
          const codeName = (err as { codeName?: unknown }).codeName;
          if (codeName !== 'IndexNotFound' && codeName !== 'NamespaceNotFound') throw err;
        });
      await unlessAborted(dropped, signal);
    }
  }
}

const ID_ONLY = { _id: 1 } as const;
// The upgrade's reads are ON_PRIMARY, whatever readPreference MONGODB_URL names: a lagging
// secondary's page would miss the newest documents of the layout before, which would never be
// brought up to date (an endpoint's last deliveries not held, a batch's ids short of the collection's end).

/** The index an endpoint's hold walks (UPGRADE_PLANS.holdPage, holdRange). */
const HOLD_INDEX = 'deliveries_endpoint_open_created';
/** The progress record's step of the holds: `<endpoint id>@<creation time its walk held up to, or "all">`. */
const HOLDING = 'holding';

/** The hold recorded last: its endpoint, and the creation time its walk held up to ('all': the whole of it). */
function holdRecorded(value: string | null): { endpointId: string; after: number | 'all' } | null {
  if (value === null) return null;
  const at = value.lastIndexOf('@');
  const after = value.slice(at + 1);
  return { endpointId: value.slice(0, at), after: after === 'all' ? 'all' : Number(after) };
}

/**
 * Holds the open deliveries of endpoint `endpointId` (it is not active) created after `after`
 * (null: all of them), a page of UPGRADE_BATCH at a time oldest first along
 * deliveries_endpoint_open_created: the page's creation times read, then that range held — each
 * a bounded write, where one update over a backlog paused for months (millions) would be one
 * command for as long as it takes, repeated whole after a failover — and, past the first page,
 * recorded, so that a process taking over goes on after the last range held. An endpoint with no
 * open delivery costs one seek and writes nothing. @returns the deliveries read, and the pages.
 * @throws Error on a delivery whose `createdAt` is not a number (none was ever written so): a
 * range of numbers would pass it by, and the batches after would make it due on a paused endpoint.
 */
async function holdOpenOf(
  deliveries: Collection<Document>,
  t: { orgId: string; env: string },
  endpointId: string,
  after: number | null,
  step: StepContext,
): Promise<{ read: number; pages: number }> {
  let read = 0;
  let pages = 0;
  for (;;) {
    const q = UPGRADE_PLANS.holdPage(t, endpointId, after);
    const page = await unlessAborted(
      deliveries
        .find(q.filter, { ...q.options, ...ON_PRIMARY, projection: CREATED_ONLY })
        .limit(UPGRADE_BATCH)
        .toArray(),
      step.signal,
    );
    if (page.length === 0) break;
    // Missing and null sort first: the first page holds them (strings and dates: the seek after the walk).
    for (const d of page) createdAtOf(d, endpointId);
    const last = page[page.length - 1]!['createdAt'] as number;
    const from = after;
    const r = UPGRADE_PLANS.holdRange(t, endpointId, from, last);
    await confirmed(`the hold of endpoint ${endpointId}'s deliveries created up to ${last}`, () => deliveries.updateMany(r.filter, HELD, r.options), step);
    read += page.length;
    pages++;
    after = last;
    if (page.length < UPGRADE_BATCH) break;
    await step.progress.save(HOLDING, `${endpointId}@${last}`);
    await step.renew();
  }
  // Strings and dates sort after every number: a walk by numbers never reaches one. Its newest
  // open delivery (one seek) says whether there is any.
  // Whenever the walk went past a creation time: a page of its own, or a takeover's resumption
  // within the endpoint (which may find no page more, and a string past it all the same).
  if (after !== null) {
    const q = UPGRADE_PLANS.holdNewest(t, endpointId);
    const newest = await unlessAborted(deliveries.findOne(q.filter, { ...q.options, ...ON_PRIMARY, projection: CREATED_ONLY }), step.signal);
    if (newest !== null) createdAtOf(newest, endpointId);
  }
  return { read, pages };
}

const CREATED_ONLY = { _id: 0, createdAt: 1 } as const;

/** `d`'s createdAt. @throws Error (the upgrade fails, naming the endpoint) when it is not a finite number. */
function createdAtOf(d: Document, endpointId: string): number {
  const at = d['createdAt'];
  if (typeof at === 'number' && Number.isFinite(at)) return at;
  throw new Error(
    `MongoDB layout upgrade: an open delivery of endpoint ${endpointId} has createdAt ${JSON.stringify(at ?? null)}, not a number; ` +
      'set it (its message’s createdAt) and start again',
  );
}
const HELD = { $set: { held: true } } as const;

/**
 * Runs `work` (everything under the lease) with the lease renewed every LEASE_MS / 4 besides its
 * own renewals between batches: one step may outlast the lease (an index build on 10⁸ documents, a
 * batch a slow majority confirms late), and a waiting process would take it over and repeat the
 * step beside it. A renewal that found the lease another's fails the upgrade once `work` ends (or
 * at its next renewal between batches); one an election left unanswered does not (the next may
 * hold it). One renewal at a time: a slow one (a majority slow to confirm) is not overtaken.
 */
async function renewedThroughout(renew: () => Promise<void>, signal: AbortSignal | undefined, work: () => Promise<void>): Promise<void> {
  let lost: unknown;
  let renewal: Promise<void> | undefined;
  const renewing = setInterval(() => {
    renewal ??= renew()
      .catch((err: unknown) => {
        if (!isFailoverError(err) && !signal?.aborted) lost ??= err;
      })
      .finally(() => (renewal = undefined));
  }, LEASE_MS / 4);
  try {
    await work();
  } finally {
    clearInterval(renewing);
    // Not after a stop: the release waits (RELEASE_WAIT_MS at most) for a renewal still on its way.
    if (!signal?.aborted) await renewal;
  }
  if (lost !== undefined) throw lost;
}

/** How long the upgrade asks again for a write a majority did not confirm (UPGRADED_BY_MAJORITY's 30 s each) before it fails. */
export const UNCONFIRMED_WRITES_MS = 5 * 60_000;
/** The wait between two tries of such a write: an election ends, a lagging member catches up. */
const UNCONFIRMED_RETRY_MS = 2_000;

/**
 * `write`, tried again while its outcome is unknown (isFailoverError: a majority that did not
 * confirm it in time, an election) — the primary may hold it or not, and every write of the
 * upgrade is idempotent, so a repeat is safe — for up to UNCONFIRMED_WRITES_MS, then the start
 * fails saying what and why; the next start goes on from the last batch recorded. A stop ends
 * the wait for it at once (the server finishes it).
 */
async function confirmed<T>(what: string, write: () => Promise<T>, { log, signal, renew }: Asking): Promise<T> {
  const since = performance.now();
  for (;;) {
    try {
      return await unlessAborted(write(), signal);
    } catch (err) {
      signal?.throwIfAborted();
      if (!isFailoverError(err)) throw err;
      if (performance.now() - since >= UNCONFIRMED_WRITES_MS) {
        throw new Error(
          `MongoDB layout upgrade: ${what} not confirmed by a majority for ${UNCONFIRMED_WRITES_MS / 60_000} minutes (${(err as Error).message}); ` +
            'the next start goes on from the last batch recorded',
          { cause: err },
        );
      }
      log(`MongoDB layout upgrade: ${what} not confirmed (${(err as Error).message}); trying again`);
      await sleep(UNCONFIRMED_RETRY_MS, undefined, signal === undefined ? undefined : { signal }).catch(() => signal?.throwIfAborted());
      // Minutes of asking again would outlast the lease (LEASE_MS): renewed before each try, or the upgrade ends if it was lost.
      await renew();
    }
  }
}

/** What a write of the upgrade says when it asks again, what ends it, and the lease's renewal between tries. */
interface Asking {
  log: (line: string) => void;
  signal: AbortSignal | undefined;
  renew: () => Promise<void>;
}

/** What a batched step hears between its batches, and where it records them. */
interface StepContext extends Asking {
  progress: UpgradeProgress;
}

/** A batched step's two sendings: the ids of its next batch past `after` (≤ UPGRADE_BATCH), and that batch's update. */
interface BatchSendings {
  ids(after: string | null): Promise<Document[]>;
  update(after: string | null, last: string): Promise<UpdateResult>;
}

/**
 * Runs the step `name` over its collection UPGRADE_BATCH _ids at a time, from past the last
 * batch an earlier run of this upgrade recorded. A stop ends the wait for a batch (the server
 * finishes it; its repeat changes nothing). @returns how many it changed (in this run).
 */
async function inBatches(name: string, step: StepContext, send: BatchSendings): Promise<number> {
  // The ids of these collections are strings: one BSON type, so a range of them is every id between.
  let after = step.progress.after(name);
  let changed = 0;
  for (;;) {
    const ids = await unlessAborted(send.ids(after), step.signal);
    if (ids.length === 0) return changed;
    const last = String(ids[ids.length - 1]!._id);
    const from = after;
    changed += (await confirmed(`step ${name}, the batch after ${from ?? 'the first id'}`, () => send.update(from, last), step)).modifiedCount;
    after = last;
    // Recorded once the batch is done: a run taking over repeats at most the batch after it.
    await step.progress.save(name, last);
    await step.renew();
  }
}

/**
 * How far an upgrade from layout `from` to SCHEMA_VERSION has gone, as its earlier runs recorded
 * it in the layout's own document (`upgrade`: UPGRADE_PLANS.layout, a majority's write), so that
 * the write of the version takes it away at once. What an upgrade between other layouts recorded
 * is not used.
 */
export class UpgradeProgress {
  readonly #meta: MongoConnection['meta'];
  readonly #from: number;
  readonly #after: Map<string, string>;
  readonly #holder: string;
  readonly #asking: Asking;
  /** Whether a record of this process's stands (its later ones are written only over its own). */
  #recorded = false;

  /** The holder of the record read at start (null: none, or one from before records named theirs). */
  readonly #readHolder: string | null;

  constructor(meta: MongoConnection['meta'], from: number, recorded: MetaDoc['upgrade'], holder: string, asking: Asking) {
    this.#meta = meta;
    this.#from = from;
    const mine = recorded !== undefined && recorded.from === from && recorded.to === SCHEMA_VERSION;
    this.#after = new Map(mine ? Object.entries(recorded.after ?? {}) : []);
    this.#readHolder = recorded?.holder ?? null;
    this.#holder = holder;
    this.#asking = asking;
  }

  /** The last _id a step finished, or null to begin at the first. */
  after(step: string): string | null {
    return this.#after.get(step) ?? null;
  }

  /**
   * Records `step` done up to `after`, replacing the record whole (another upgrade's too). Only
   * over the record this process read at start (its first) or wrote since (this one's own, also
   * where the first's answer was lost and it is sent again): a process that stalled past its lease
   * cannot put the record of the one that took over back to where it stalled, nor take it over.
   * @throws UpgradedMeanwhile once another process has written SCHEMA_VERSION, or recorded the upgrade as its own (this one's lease ran out).
   */
  async save(step: string, after: string): Promise<void> {
    this.#after.set(step, after);
    await this.claim();
  }

  /** Writes the record as it stands (this process's first: it takes the record over). @throws UpgradedMeanwhile as save. */
  async claim(): Promise<void> {
    const q = UPGRADE_PLANS.record(SCHEMA_VERSION, this.#recorded ? [this.#holder] : [this.#readHolder, this.#holder]);
    const upgrade = { from: this.#from, to: SCHEMA_VERSION, holder: this.#holder, after: Object.fromEntries(this.#after) };
    try {
      await confirmed('the record of its batches', () => this.#meta.updateOne(q.filter, { $set: { upgrade } }, { ...q.options, upsert: true }), this.#asking);
      this.#recorded = true;
    } catch (err) {
      if (isDuplicateKey(err, '_id_')) throw new UpgradedMeanwhile();
      throw err;
    }
  }
}

/** Another process upgraded the layout, or took its upgrade over, while this one's lease had run out (a stall): this one stops, and reads the version. */
class UpgradedMeanwhile extends Error {
  override message = 'another process upgraded the layout, or took its upgrade over, meanwhile';
}

/**
 * Layout 4: the single `messages`, `message_bodies`, `deliveries` and `attempts`
 * collections of earlier layouts are adopted where they are, as the bucket of this month and
 * every month before it (connection.ts, legacyMonth) — no document is copied or deleted, so the
 * upgrade costs index builds, not a rewrite of the store with its oplog. New months get their
 * own collections; retention drops the adopted ones whole once this month leaves the window.
 * This layout's indexes are built on them (a new partial index on a field no document has yet
 * costs one pass, without blocking writes), the index retention no longer uses is dropped, and
 * the due queue's entries (keyed by endpoint alone) give way to one per endpoint and month.
 */
async function adoptSingleCollections(
  conn: MongoConnection,
  now: number,
  renew: () => Promise<void>,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  const list = MONTHS_PLANS.list(MONTHS_DOC);
  // The month a run that crashed after choosing it chose (a second run must not move it on).
  const proposed = (await unlessAborted(conn.meta.findOne(list.filter, { ...list.options, ...ON_PRIMARY }), signal))?.legacyMonth ?? monthOf(now);
  const chosen = UPGRADE_PLANS.legacyMonth();
  await confirmed(
    'the legacy month',
    async () => {
      try {
        await conn.meta.updateOne(chosen.filter, { $set: { legacyMonth: proposed }, $addToSet: { months: proposed } }, { ...chosen.options, upsert: true });
      } catch (err) {
        // Chosen already (by another process, or by this write's first try before a failover): that one stands.
        if (!isDuplicateKey(err, '_id_')) throw err;
      }
    },
    { log, signal, renew },
  );
  conn.forgetMonths();
  // From here the legacy month's bucket is the single collections (connection.ts): the month as
  // the primary holds it, whoever chose it.
  await conn.readLegacyMonth();
  const month = conn.legacyMonth ?? proposed;
  // Asked while the legacy month was written: no builds begun that nobody waits for.
  signal?.throwIfAborted();
  // A stop does not wait for the builds (hours on 10⁸ documents, the lease renewed meanwhile:
  // renewedThroughout): the server goes on with them (a client that goes does not end a build),
  // and the next upgrade's createIndexes of the same definitions waits for them there, or builds
  // again one that was ended.
  await unlessAborted(ensureBucketIndexes(conn.bucket(month)), signal);
  await renew();
  await unlessAborted(
    conn.db
      .collection(COLLECTIONS.messages)
      .dropIndex('messages_created_at')
      .catch((err: unknown) => {
        if ((err as { codeName?: unknown }).codeName !== 'IndexNotFound') throw err;
      }),
    signal,
  );
  // Once, a scan of one document per endpoint.
  await unlessAborted(conn.db.collection(COLLECTIONS.dueEndpoints).deleteMany({ month: { $exists: false } }), signal);
  log(`MongoDB layout upgrade: messages, bodies, deliveries and attempts kept in place as the bucket of ${month} and the months before it`);
}

/**
 * Gives every endpoint with due work in a month its `due_endpoints` bound for that month,
 * one seek per endpoint on the month's deliveries_endpoint_due_queue, never the backlog.
 */
async function backfillDueQueue(conn: MongoConnection, renew: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  let n = 0;
  for (const month of await conn.months()) {
    let after = '';
    for (;;) {
      const next = await unlessAborted(nextEndpointFirstDue(conn, month, after), signal);
      if (next === null) break;
      after = next.endpointId;
      if (next.note !== null) await unlessAborted(noteDue(conn, [next.note]), signal);
      if (++n % 1_000 === 0) await renew();
    }
  }
}

/**
 * Gives every tenant with entries in `due_endpoints` its `due_tenants` bound (layout 5), at most
 * its entries' least: a walk of the entries by _id, UPGRADE_BATCH at a time (one document per
 * endpoint and month with due work, never the backlog), each batch's tenants lowered by `$min`
 * in one bulk write — idempotent, so a takeover walks again from the start. (The index the
 * tenant level replaced, due_endpoints_due, is dropped at every start: RETIRED_INDEXES.)
 */
async function backfillDueTenants(conn: MongoConnection, renew: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  for (let after = ''; ; ) {
    const q = DELIVERIES_PLANS.dueEntriesAfter(after);
    const page = await unlessAborted(
      conn.dueEndpoints
        .find(q.filter, { ...q.options, projection: { orgId: 1, env: 1, dueAt: 1 } })
        .limit(UPGRADE_BATCH)
        .toArray(),
      signal,
    );
    if (page.length === 0) break;
    await unlessAborted(lowerTenants(conn, page), signal);
    after = page[page.length - 1]!._id;
    await renew();
  }
}

/**
 * Queued alert events from before per-organization numbers (a number `_id`, no `seq`) get one:
 * their old number less 2^40, so they keep their order and come before the organization's new
 * events, under an `_id` of the new form. A handful at most (the outbox is drained every tick).
 */
async function renumberAlertEvents(db: Db): Promise<void> {
  const events = db.collection<{ _id: string | number; orgId: string; seq?: number }>(COLLECTIONS.alertEvents);
  for (const old of await events
    .find({ seq: { $exists: false } })
    .limit(LEGACY_EVENTS)
    .toArray()) {
    if (typeof old._id !== 'number') continue;
    const seq = old._id - 2 ** 40;
    const { _id: _old, ...fields } = old;
    const _id = `${old.orgId}:${seq}`;
    await events.updateOne({ _id }, { $setOnInsert: { ...fields, seq } }, { upsert: true });
    await events.deleteOne({ _id: old._id });
  }
}
const LEGACY_EVENTS = 10_000;
