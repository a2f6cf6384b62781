// The layout upgrade's lease and version checks, without a server: a connection that answers
// the layout's document from a script and records the writes (a layout-3 database with no
// months, so the upgrade itself writes only the version).
import { MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it, vi } from 'vitest';
import type { MongoConnection } from './connection.ts';
import type { MetaDoc } from './documents.ts';
import { SCHEMA_VERSION, UPGRADE_ASK_AGAIN_MS, upgradeLayout } from './layout-upgrade.ts';
import { SERVICE_STOP_MS } from '@wirehook/core';
import { RELEASE_WAIT_MS } from './upgrade-lease.ts';

function database(
  versions: (number | null)[],
  options: {
    versionWrite?: Error;
    /** Another process chose this legacy month after this one read none (a stall at a month's turn): this one's choice meets it. */
    legacyChosenMeanwhile?: string;
    endpoints?: number;
    onEndpoint?: (n: number) => void;
    heldByAnother?: () => void;
    /** Told as this process takes the lease. */
    onLeaseTaken?: () => void;
    /** A layout-3 database of single collections (before monthly buckets): their indexes build for ever, this told as they start. */
    onIndexBuild?: () => void;
    /** A layout-2 database's deliveries (ids `dl_000001`…), brought up to date in batches by _id range; told of each batch's update. */
    deliveries?: number;
    onDeliveriesBatch?: (n: number) => void;
    /**
     * A layout-2 database's endpoints (ids `ep_000001`…): those whose number `inactive` says are paused, each with open
     * deliveries created at the times `open` gives (in order; one at 1 unless it says); told of each range held.
     */
    statuses?: {
      endpoints: number;
      inactive: (n: number) => boolean;
      open?: (id: string) => (number | string | null)[];
      onHold?: (id: string) => void;
      answered?: Promise<void>;
    };
    /** The layout document's `upgrade` record (kept across upgrades of the same stand-in). */
    progress?: { upgrade: MetaDoc['upgrade'] | null };
    /** Another process writes the version after this one's `n`th record of a batch (its lease ran out meanwhile). */
    upgradedAfterRecords?: number;
    /** Another process takes the upgrade over after this one's `n`th record, and records it as its own. */
    takenOverAfterRecords?: number;
    /** Another process took the upgrade over, and recorded it as its own, before this one's first record. */
    takenOverBeforeFirstRecord?: boolean;
    /** The lease's take never answered (a primary being elected: the driver looks for one for 30 s); told as it is sent. */
    onTakeUnanswered?: () => void;
    /** Its record's writes never answered (a majority that does not confirm); told as the first is sent. */
    onProgressUnanswered?: () => void;
    /** The deliveries' batch updates: the first `unconfirmed` not confirmed by a majority in time; told as one never answers. */
    unconfirmed?: number;
    onBatchUnanswered?: () => void;
    /** The due queue's entries (`due_endpoints`) of a layout-4 database, by _id: their tenants get bounds (layout 5). */
    dueEntries?: { _id: string; orgId: string; env: string; dueAt: number }[];
  } = {},
) {
  const writes: string[] = [];
  const progress = options.progress ?? { upgrade: null };
  /** Each deliveries batch's update, as its _id range; each range of an endpoint's deliveries held, by the endpoint's id and as the range. */
  const batches: string[] = [];
  const held: string[] = [];
  const holdRanges: string[] = [];
  let holdIndexBuilt = false;
  const openOf = (id: string) => options.statuses?.open?.(id) ?? [1];
  /** The hold's walk and its ranges: the open deliveries of one endpoint along deliveries_endpoint_open_created, or the stand-in refuses them. */
  const HOLD_KEY = '{"orgId":1,"env":1,"endpointId":1,"createdAt":1}';
  const numbered = (prefix: string, n: number) => `${prefix}${String(n).padStart(6, '0')}`;
  /** The upgrade's writes wait for a majority, 30 s at most (plans/upgrade.ts), or the stand-in refuses them. */
  const byMajority = (o: { writeConcern?: unknown } | undefined) => {
    if (JSON.stringify(o?.writeConcern) !== '{"w":"majority","wtimeoutMS":30000}') throw new Error(`not a majority's write: ${JSON.stringify(o)}`);
  };
  let unconfirmed = options.unconfirmed ?? 0;
  let records = 0;
  let stored = 0;
  let firstRecordSeen = false;
  /** The upgrade's reads go to the primary, whatever the URL's readPreference (a lagging secondary's page would miss documents). */
  const onPrimary = (o: { readPreference?: { mode?: string } }) => {
    if (o.readPreference?.mode !== 'primary') throw new Error(`a read not on the primary: ${JSON.stringify(o.readPreference)}`);
  };
  /** The upgrade's walks go by _id, as their plans say (the hint and the order), or the stand-in refuses them. */
  const byId = (o: { hint?: unknown; sort?: unknown; readPreference?: { mode?: string } }) => {
    if (JSON.stringify(o.hint) !== '{"_id":1}' || JSON.stringify(o.sort) !== '{"_id":1}') throw new Error(`not a walk of _id: ${JSON.stringify(o)}`);
    onPrimary(o);
  };
  /** A walk of `count` ids `prefix000001`…, past `filter._id.$gt`, as documents `more` fills in. */
  const walk = (prefix: string, count: number, more: (n: number) => object = () => ({})) => ({
    find: (filter: { _id?: { $gt: string } }, o: { hint?: unknown; sort?: unknown; readPreference?: { mode?: string } }) => {
      byId(o);
      return {
        limit: (limit: number) => ({
          toArray: async () => {
            const first = filter._id === undefined ? 1 : Number(filter._id.$gt.slice(prefix.length)) + 1;
            const last = Math.min(first + limit - 1, count);
            return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => ({ _id: numbered(prefix, first + i), ...more(first + i) }));
          },
        }),
      };
    },
  });
  const none = { find: () => ({ limit: () => ({ toArray: async () => [] }) }), dropIndex: async () => {} };
  const tenantBounds = new Map<string, number>();
  const dueIndexesDropped: string[] = [];
  let dueEntryPages = 0;
  /** Endpoints the due queue's backfill has read (the months' stand-in: `endpoints` with due work, each without a first due entry). */
  let endpointsRead = 0;
  const endpoint = (n: number) => numbered('ep_', n);
  /** An index build on 10⁸ documents, as far as a test's time goes: it never ends. */
  const indexBuild = () => {
    writes.push('index build begun');
    options.onIndexBuild?.();
    return new Promise<never>(() => {});
  };
  const conn = {
    // The upgrade's primary-only handle of the database: the same stand-in.
    client: { db: () => conn.db },
    meta: {
      findOne: async () => {
        const version = versions.length > 1 ? versions.shift() : versions[0];
        if (version === null || version === undefined) return progress.upgrade === null ? null : { _id: 'schema', upgrade: progress.upgrade };
        return { _id: 'schema', version, ...(progress.upgrade === null ? {} : { upgrade: progress.upgrade }) };
      },
      updateOne: async (
        filter: { _id: string },
        update: { $max?: { version: number }; $set?: { legacyMonth?: string; upgrade?: MetaDoc['upgrade'] }; $unset?: { upgrade?: '' } },
        o?: { writeConcern?: unknown },
      ) => {
        if (update.$set?.legacyMonth === undefined) byMajority(o);
        if (update.$set?.upgrade !== undefined && options.onProgressUnanswered !== undefined) {
          options.onProgressUnanswered();
          return new Promise<never>(() => {});
        }
        const { _id, version, 'upgrade.holder': holder, ...rest } = filter as { _id: string; version?: unknown; 'upgrade.holder'?: { $in: (string | null)[] } };
        const belowVersion = _id === 'schema' && JSON.stringify(version) === `{"$not":{"$gte":${SCHEMA_VERSION}}}` && Object.keys(rest).length === 0;
        // Another process took the upgrade over and recorded it before this one's first record arrived.
        if (update.$set?.upgrade !== undefined && options.takenOverBeforeFirstRecord && !firstRecordSeen) {
          progress.upgrade = { from: 2, to: SCHEMA_VERSION, holder: 'another process', after: { deliveries: 'dl_030000' } };
        }
        if (update.$set?.upgrade !== undefined) firstRecordSeen = true;
        // A record over another holder's (one that took the upgrade over) matches nothing, as one after the version.
        const othersRecord = update.$set?.upgrade !== undefined && !holder?.$in.includes(progress.upgrade?.holder ?? null);
        if (update.$set?.upgrade !== undefined && belowVersion && (othersRecord || records++ >= (options.upgradedAfterRecords ?? Number.POSITIVE_INFINITY))) {
          // The record's filter (the layout below the version) matches nothing: its upsert meets the document's _id.
          writes.push('record refused');
          throw new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error collection: wirehook.meta index: _id_ dup key: { _id: "schema" }' });
        }
        if (update.$set?.upgrade !== undefined) {
          progress.upgrade = update.$set.upgrade;
          // Another process takes the upgrade over (this one's lease ran out) and records it as its own.
          if (++stored === options.takenOverAfterRecords) progress.upgrade = { ...progress.upgrade, holder: 'another process' };
          return;
        }
        if (update.$set?.legacyMonth !== undefined && options.legacyChosenMeanwhile !== undefined) {
          // Written only where none is chosen: the filter says so, and meets the one chosen (E11000 of the upsert).
          if (JSON.stringify(rest) !== '{"legacyMonth":{"$exists":false}}') throw new Error('the legacy month written over one chosen');
          writes.push('legacy month chosen elsewhere');
          throw new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error collection: wirehook.meta index: _id_ dup key: { _id: "months" }' });
        }
        if (update.$set?.legacyMonth !== undefined) return void writes.push('legacy month chosen');
        if (options.versionWrite) throw options.versionWrite;
        writes.push(`version ${update.$max?.version}`);
        if (update.$unset?.upgrade === '' && progress.upgrade !== null) writes.push('progress forgotten');
        if (update.$unset?.upgrade === '') progress.upgrade = null;
      },
    },
    db: {
      listCollections: () => ({ toArray: async () => (options.onIndexBuild === undefined ? [] : [{ name: 'messages' }]) }),
      collection: (name: string) => {
        if (name === 'endpoints') {
          const statuses = options.statuses ?? { endpoints: 0, inactive: () => false };
          return { ...none, ...walk('ep_', statuses.endpoints, (n) => ({ status: statuses.inactive(n) ? 'paused' : 'active', orgId: 'org_1', env: 'live' })) };
        }
        if (name !== 'deliveries') return none;
        const deliveries = walk('dl_', options.deliveries ?? 0);
        return {
          ...none,
          createIndexes: async (indexes: { name: string; key: object }[]) => {
            if (JSON.stringify(indexes.map((i) => [i.name, i.key])) !== `[["deliveries_endpoint_open_created",${HOLD_KEY}]]`)
              throw new Error('not the hold’s index');
            holdIndexBuilt = true;
            writes.push('hold index built');
          },
          find: (
            filter: { endpointId?: string; status?: unknown; createdAt?: { $gt?: number } },
            o: { hint?: unknown; sort?: unknown; projection?: unknown; readPreference?: { mode?: string } },
          ) => {
            if (filter.endpointId === undefined) return deliveries.find(filter as never, o);
            if (!holdIndexBuilt) throw new Error('hint provided does not correspond to an existing index');
            onPrimary(o);
            const shape = [o.hint, o.sort, o.projection, filter.status].map((x) => JSON.stringify(x)).join(' ');
            if (shape !== `${HOLD_KEY} {"createdAt":1} {"_id":0,"createdAt":1} {"$in":["pending","retrying"]}`) throw new Error(`not a hold's page: ${shape}`);
            const past = filter.createdAt?.$gt ?? Number.NEGATIVE_INFINITY;
            // What does not compare as a number (missing, null) comes first, and only on the first page.
            const page = openOf(filter.endpointId).filter((at) => (typeof at === 'number' ? at > past : past === Number.NEGATIVE_INFINITY));
            return { limit: (limit: number) => ({ toArray: async () => page.slice(0, limit).map((createdAt) => ({ createdAt })) }) };
          },
          // An endpoint's newest open delivery, by the hold's index backwards (what sorts after every number comes last).
          findOne: async (filter: { endpointId: string; createdAt?: unknown }, o: { hint?: unknown; sort?: unknown; readPreference?: { mode?: string } }) => {
            onPrimary(o);
            const shape = [o.hint, o.sort].map((x) => JSON.stringify(x)).join(' ');
            if (shape !== `${HOLD_KEY} {"createdAt":-1}` || filter.createdAt !== undefined) throw new Error(`not the hold's newest: ${shape}`);
            const open = openOf(filter.endpointId);
            return open.length === 0 ? null : { createdAt: open[open.length - 1] };
          },
          updateMany: async (
            filter: { endpointId?: string; status?: unknown; held?: unknown; _id?: { $gt?: string; $lte: string }; createdAt?: { $gt?: number; $lte: number } },
            _update: unknown,
            o?: { writeConcern?: unknown; hint?: unknown },
          ) => {
            byMajority(o);
            // Open deliveries alone (the batch's step, the hold's), a hold by its endpoint's index and only where `held` is missing.
            if (JSON.stringify(filter.status) !== '{"$in":["pending","retrying"]}') throw new Error(`not the open deliveries: ${JSON.stringify(filter)}`);
            const holdShape =
              JSON.stringify(o?.hint) === HOLD_KEY && JSON.stringify(filter.held) === '{"$exists":false}' && filter.createdAt?.$lte !== undefined;
            if (filter.endpointId !== undefined && !holdShape) throw new Error(`not a hold of the deliveries without held: ${JSON.stringify({ filter, o })}`);
            if (filter.endpointId === undefined && options.onBatchUnanswered !== undefined) {
              options.onBatchUnanswered();
              return new Promise<never>(() => {});
            }
            if (filter.endpointId === undefined && unconfirmed-- > 0) {
              writes.push('batch not confirmed');
              throw new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never);
            }
            if (filter.endpointId !== undefined && filter.createdAt !== undefined) {
              held.push(filter.endpointId);
              holdRanges.push(`${filter.endpointId}: ${filter.createdAt.$gt ?? '…'} < createdAt ≤ ${filter.createdAt.$lte}`);
              options.statuses?.onHold?.(filter.endpointId);
              await options.statuses?.answered;
              return { modifiedCount: 0 };
            }
            batches.push(`${filter._id?.$gt ?? '…'} < _id ≤ ${filter._id?.$lte}`);
            options.onDeliveriesBatch?.(batches.length);
            return { modifiedCount: 0 };
          },
        };
      },
    },
    forgetMonths: () => {},
    legacyMonth: null as string | null,
    readLegacyMonth: async () => {
      conn.legacyMonth = options.legacyChosenMeanwhile ?? null;
    },
    months: async () => (options.endpoints === undefined ? [] : ['2026-12']),
    /** The months whose bucket the upgrade asked for. */
    bucketsAsked: [] as string[],
    bucket: (month: string) => {
      conn.bucketsAsked.push(month);
      return conn.monthBucket();
    },
    monthBucket: () => ({
      ...Object.fromEntries(['messages', 'messageBodies', 'attempts'].map((name) => [name, { createIndexes: () => indexBuild() }])),
      deliveries: {
        createIndexes: () => indexBuild(),
        // nextEndpointWithWork (endpointId past `after`) or firstDueOf (one endpoint's, none here).
        find: (filter: { endpointId: string | { $gt: string } }) => ({
          limit: () => ({
            toArray: async () => {
              if (typeof filter.endpointId === 'string') return [];
              const next = filter.endpointId.$gt === '' ? 1 : Number(filter.endpointId.$gt.slice(3)) + 1;
              if (next > (options.endpoints ?? 0)) return [];
              endpointsRead = next;
              options.onEndpoint?.(next);
              return [{ endpointId: endpoint(next), orgId: 'org_1', env: 'live' }];
            },
          }),
        }),
      },
    }),
    // The due queue's entries, walked by _id in pages (backfillDueTenants); the tenants' bounds as `$min` leaves them.
    dueEndpoints: {
      find: (filter: { _id: { $gt: string } }, o: { hint?: unknown; sort?: unknown }) => {
        if (JSON.stringify(o.hint) !== '{"_id":1}' || JSON.stringify(o.sort) !== '{"_id":1}') throw new Error(`not a walk of _id: ${JSON.stringify(o)}`);
        return {
          limit: (limit: number) => ({
            toArray: async () => {
              dueEntryPages++;
              return (options.dueEntries ?? []).filter((e) => e._id > filter._id.$gt).slice(0, limit);
            },
          }),
        };
      },
      dropIndex: async (name: string) => {
        dueIndexesDropped.push(name);
        throw new MongoServerError({ codeName: 'IndexNotFound', errmsg: `index not found with name [${name}]` });
      },
    },
    dueTenants: {
      bulkWrite: async (ops: { updateOne: { filter: { _id: string }; update: { $min: { dueAt: number } } } }[]) => {
        for (const { updateOne } of ops) {
          const seen = tenantBounds.get(updateOne.filter._id) ?? Number.POSITIVE_INFINITY;
          tenantBounds.set(updateOne.filter._id, Math.min(seen, updateOne.update.$min.dueAt));
        }
        return { modifiedCount: ops.length, upsertedCount: 0 };
      },
    },
    jobLeases: {
      // The take's pipeline (leaseTakeUpdate): the holder as a literal, the end the server's time plus the length.
      // Taken: the pipeline's holder when its rule holds (`$cond: [rule, { $literal: holder }, '$holder']`).
      findOneAndUpdate: async (_filter: unknown, update: [{ $set: { holder: { $cond: [unknown, { $literal: string }, string] } } }]) => {
        if (options.onTakeUnanswered) {
          writes.push('lease asked');
          options.onTakeUnanswered();
          return new Promise<never>(() => {});
        }
        if (options.heldByAnother) {
          writes.push('lease refused');
          options.heldByAnother();
          return { _id: 'schema-upgrade', holder: 'another process', takenAt: 1_000 };
        }
        writes.push('lease taken');
        options.onLeaseTaken?.();
        return { _id: 'schema-upgrade', holder: update[0].$set.holder.$cond[1].$literal, takenAt: 1_000 };
      },
      updateOne: async (filter: { holder: string }, update: { $set: { leaseUntil: number } }) => {
        writes.push(`lease given up (${update.$set.leaseUntil}, by its holder: ${typeof filter.holder === 'string'})`);
      },
    },
  };
  // The upgrade reads through its primary-only connection (onPrimary): the URL's own refuses the reads that choose where
  // data goes (the months, the legacy month, a month's collections), which a lagging secondary would answer stale.
  const refuse = (what: string) => () => {
    throw new Error(`${what} read through the URL's readPreference, not the primary`);
  };
  const urlConn = {
    ...conn,
    onPrimary: () => conn,
    months: refuse('months'),
    readLegacyMonth: refuse('readLegacyMonth'),
    forgetMonths: refuse('forgetMonths'),
    bucket: refuse('bucket'),
  };
  return {
    conn: urlConn as unknown as MongoConnection,
    writes,
    endpointsRead: () => endpointsRead,
    batches,
    held,
    holdRanges,
    progress,
    bucketsAsked: conn.bucketsAsked,
    tenantBounds,
    dueIndexesDropped,
    dueEntryPages: () => dueEntryPages,
  };
}

const upgrade = (conn: MongoConnection, signal?: AbortSignal) => upgradeLayout(conn, 'mongodb://db-0', () => {}, signal);

describe('upgradeLayout', () => {
  it(`a layout-3 database: upgraded under the lease to ${SCHEMA_VERSION}, then the lease given up`, async () => {
    const db = database([3]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('a layout-4 database: each tenant with due entries gets its bound, the least of its entries’, a page of 10,000 entries at a time', async () => {
    const entries = Array.from({ length: 25_000 }, (_, i) => ({
      _id: `202612:ep_${String(i).padStart(6, '0')}`,
      orgId: `org_${i % 3}`,
      env: i % 2 === 0 ? 'live' : 'test',
      dueAt: 1_000_000 - i,
    }));
    // Endpoints with due work in the months too: layout 4 kept their entries, so the upgrade does not walk them again.
    const db = database([4], { dueEntries: entries, endpoints: 500 });
    await upgrade(db.conn);
    expect(db.endpointsRead()).toBe(0);
    // Six tenants (3 organizations × 2 environments), each at its last entry's bound (the walk's least).
    expect(Object.fromEntries(db.tenantBounds)).toEqual({
      'org_0/live': 1_000_000 - 24_996,
      'org_1/test': 1_000_000 - 24_997,
      'org_2/live': 1_000_000 - 24_998,
      'org_0/test': 1_000_000 - 24_999,
      'org_1/live': 1_000_000 - 24_994,
      'org_2/test': 1_000_000 - 24_995,
    });
    // Pages of 10,000, 10,000, 5,000, then the empty one that ends the walk. (The index the tenant level replaced is dropped
    // by every start's dropRetiredIndexes after the upgrade, not here: an older binary started since would have made it again.)
    expect(db.dueEntryPages()).toBe(4);
    expect(db.dueIndexesDropped).toEqual([]);
    // The lease renewed after each page (a renewal is a take by its holder).
    expect(db.writes).toEqual(['lease taken', ...Array(3).fill('lease taken'), `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('a layout-3 database: its endpoints’ entries made by month (the walk), then every tenant’s bound', async () => {
    const db = database([3], { endpoints: 3, dueEntries: [{ _id: '202612:ep_000001', orgId: 'org_1', env: 'live', dueAt: 7 }] });
    await upgrade(db.conn);
    expect(db.endpointsRead()).toBe(3);
    expect(Object.fromEntries(db.tenantBounds)).toEqual({ 'org_1/live': 7 });
  });

  it('a new database (no version, no single collections): the version written at once, nothing migrated', async () => {
    // The stand-in has no collections to migrate: a migration's first read or index drop would throw here.
    const db = database([null]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('upgraded by another process between the first read and the lease: read again under it, nothing redone', async () => {
    const db = database([3, SCHEMA_VERSION]);
    await upgrade(db.conn);
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a newer layout found under the lease is refused, and the lease given up', async () => {
    const db = database([3, SCHEMA_VERSION + 1]);
    await expect(upgrade(db.conn)).rejects.toThrow(`holds layout ${SCHEMA_VERSION + 1}, written by a newer Wirehook`);
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('an upgrade that fails gives the lease up, so the next start need not wait for it to run out', async () => {
    const db = database([3], { versionWrite: new Error('not authorized on wirehook to execute command { update: "meta" }') });
    await expect(upgrade(db.conn)).rejects.toThrow('not authorized');
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a stop asked during the upgrade ends it at its next read, the lease given up, the version not written', async () => {
    const stop = new AbortController();
    // 2,500 endpoints with due work; the stop comes as the 1,500th is read.
    const db = database([3], { endpoints: 2_500, onEndpoint: (n) => n === 1_500 && stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    // The renewal after the 1,000th went; the read that heard the stop was the last (not the renewal after the 2,000th).
    expect(db.endpointsRead()).toBe(1_500);
    expect(db.writes).toEqual(['lease taken', 'lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('without a stop the same upgrade reads every endpoint and writes the version', async () => {
    const db = database([3], { endpoints: 2_500 });
    await upgrade(db.conn, new AbortController().signal);
    expect(db.endpointsRead()).toBe(2_500);
    expect(db.writes).toEqual(['lease taken', 'lease taken', 'lease taken', `version ${SCHEMA_VERSION}`, 'lease given up (0, by its holder: true)']);
  });

  it('a stop asked while the index builds run ends the upgrade without waiting for them, the lease given up', async () => {
    const stop = new AbortController();
    const db = database([3], { onIndexBuild: () => stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.writes).toEqual(['lease taken', 'legacy month chosen', 'index build begun', 'lease given up (0, by its holder: true)']);
  });

  it('a legacy month another process chose meanwhile stands: this one’s choice is refused, and it builds the indexes of that month’s bucket', async () => {
    const stop = new AbortController();
    const db = database([3], { legacyChosenMeanwhile: '202602', onIndexBuild: () => stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.writes).toEqual(['lease taken', 'legacy month chosen elsewhere', 'index build begun', 'lease given up (0, by its holder: true)']);
    expect(db.bucketsAsked).toEqual(['202602']);
  });

  it('a stop asked while the lease is taken begins nothing under it (no legacy month chosen, no index build), the lease given up', async () => {
    const stop = new AbortController();
    const db = database([3], { onIndexBuild: () => {}, onLeaseTaken: () => stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a stop asked while another process upgrades ends the wait for it at once', async () => {
    const stop = new AbortController();
    // The lease is another's; the stop comes as it is refused: the 2 s wait before asking again ends with it.
    const db = database([3], { heldByAnother: () => stop.abort(new Error('SIGTERM while starting')) });
    const startedAt = performance.now();
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    // Not after the wait before asking again: a stop there ended it (the refusal and the stop come together).
    expect(performance.now() - startedAt).toBeLessThan(0.9 * UPGRADE_ASK_AGAIN_MS);
    // Given up (by its holder only) in case a take of unknown outcome had stood: the other's lease is untouched.
    expect(db.writes).toEqual(['lease refused', 'lease given up (0, by its holder: true)']);
  });

  it(
    `a stop asked while the lease's take waits for a primary ends the start after ${RELEASE_WAIT_MS / 1000} s at most, nothing begun`,
    async () => {
      const stop = new AbortController();
      const db = database([3], { onIndexBuild: () => {}, onTakeUnanswered: () => stop.abort(new Error('SIGTERM while starting')) });
      const lines: string[] = [];
      const startedAt = performance.now();
      // Not the driver's 30 s, past a stop's 20 s deadline: the release waits RELEASE_WAIT_MS for the take's answer, then leaves the lease to run out.
      await expect(upgradeLayout(db.conn, 'mongodb://db-0', (line) => lines.push(line), stop.signal)).rejects.toThrow('SIGTERM while starting');
      expect(RELEASE_WAIT_MS).toBeLessThan(SERVICE_STOP_MS / 2);
      expect(performance.now() - startedAt).toBeLessThan(SERVICE_STOP_MS);
      expect(db.writes).toEqual(['lease asked']);
      expect(lines.join('\n')).toContain(`its lease could not be given up (no answer in ${RELEASE_WAIT_MS / 1000} s)`);
    },
    2 * SERVICE_STOP_MS,
  );

  it('a stop asked before the start: nothing read under a lease, nothing taken', async () => {
    const stop = new AbortController();
    stop.abort(new Error('SIGTERM while starting'));
    const db = database([3]);
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.writes).toEqual([]);
  });

  it('the current layout: nothing taken, nothing written', async () => {
    const db = database([SCHEMA_VERSION]);
    await upgrade(db.conn);
    expect(db.writes).toEqual([]);
  });

  it('a layout-2 upgrade after a stop goes on after the last batch the stopped one finished (10,000 deliveries a batch), then forgets it', async () => {
    const stop = new AbortController();
    const progress = { upgrade: null };
    // 25,000 deliveries: three batches; the stop comes with the second's update.
    const onDeliveriesBatch = (n: number) => n === 2 && stop.abort(new Error('SIGTERM while starting'));
    const first = database([2], { deliveries: 25_000, progress, onDeliveriesBatch });
    await expect(upgrade(first.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(first.batches).toEqual(['… < _id ≤ dl_010000', 'dl_010000 < _id ≤ dl_020000']);
    expect(first.writes).toEqual(['lease taken', 'hold index built', 'lease taken', 'lease taken', 'lease given up (0, by its holder: true)']);

    const next = database([2], { deliveries: 25_000, progress });
    await upgrade(next.conn);
    expect(next.batches).toEqual(['dl_020000 < _id ≤ dl_025000']);
    expect(next.writes).toEqual([
      'lease taken',
      'hold index built',
      'lease taken',
      'lease taken',
      `version ${SCHEMA_VERSION}`,
      'progress forgotten',
      'lease given up (0, by its holder: true)',
    ]);
    expect(progress.upgrade).toBeNull();
  });

  it('progress another upgrade recorded (from another layout) is not used: the walk begins at the first delivery', async () => {
    const progress = { upgrade: { from: 1, to: SCHEMA_VERSION, after: { deliveries: 'dl_020000' } } };
    const db = database([2], { deliveries: 15_000, progress });
    await upgrade(db.conn);
    expect(db.batches).toEqual(['… < _id ≤ dl_010000', 'dl_010000 < _id ≤ dl_015000']);
  });

  it('a layout-2 upgrade after a stop holds the open deliveries of the paused endpoints past the last page of 1,000 endpoints done', async () => {
    const stop = new AbortController();
    const progress = { upgrade: null };
    // 2,500 endpoints, every tenth paused, one open delivery each; the stop comes as the second page holds ep_001510's.
    const inactive = (n: number) => n % 10 === 0;
    const onHold = (id: string) => id === 'ep_001510' && stop.abort(new Error('SIGTERM while starting'));
    const first = database([2], { statuses: { endpoints: 2_500, inactive, onHold }, progress });
    await expect(upgrade(first.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(first.held).toHaveLength(151);
    expect(first.held.at(-1)).toBe('ep_001510');
    // Fifty-one deliveries held on this page: too few for a record of their own (a majority's write an endpoint).
    expect(progress.upgrade).toEqual({ from: 2, to: SCHEMA_VERSION, holder: expect.any(String), after: { endpoints: 'ep_001000' } });

    const next = database([2], { statuses: { endpoints: 2_500, inactive }, progress });
    await upgrade(next.conn);
    // The second page again (its holds change nothing the second time), then the third.
    expect(next.held[0]).toBe('ep_001010');
    expect(next.held).toHaveLength(150);
    expect(next.writes.slice(-3)).toEqual([`version ${SCHEMA_VERSION}`, 'progress forgotten', 'lease given up (0, by its holder: true)']);
  });

  it('endpoints’ holds are recorded once 10,000 deliveries were read since the last record: a stop goes on after the last one recorded', async () => {
    const stop = new AbortController();
    const progress: { upgrade: MetaDoc['upgrade'] | null } = { upgrade: null };
    // Ten paused endpoints of 4,000 open deliveries each: recorded after the third (12,000 read), the sixth and the ninth.
    const open = () => Array.from({ length: 4_000 }, (_, i) => i + 1);
    const onHold = (id: string) => id === 'ep_000008' && stop.abort(new Error('SIGTERM while starting'));
    const first = database([2], { statuses: { endpoints: 10, inactive: () => true, open, onHold }, progress });
    await expect(upgrade(first.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(progress.upgrade?.after).toEqual({ holding: 'ep_000006@all' });

    const next = database([2], { statuses: { endpoints: 10, inactive: () => true, open }, progress });
    await upgrade(next.conn);
    expect(next.held).toEqual(['ep_000007', 'ep_000008', 'ep_000009', 'ep_000010']);
  });

  it('a paused endpoint with 25,000 open deliveries is held 10,000 a range oldest first, each range recorded; one with none writes nothing', async () => {
    const open = (id: string) => (id === 'ep_000002' ? Array.from({ length: 25_000 }, (_, i) => 1_000 + i) : []);
    const db = database([2], { statuses: { endpoints: 3, inactive: () => true, open } });
    await upgrade(db.conn);
    expect(db.holdRanges).toEqual(['ep_000002: … < createdAt ≤ 10999', 'ep_000002: 10999 < createdAt ≤ 20999', 'ep_000002: 20999 < createdAt ≤ 25999']);
  });

  it('a page that ends within a millisecond holds that millisecond whole, and the next page begins past it', async () => {
    // 12,000 deliveries created in one millisecond, then 3 more: a page of 10,000 cannot get past the millisecond by itself.
    const open = () => [...Array.from({ length: 12_000 }, () => 5_000), 5_001, 5_002, 5_003];
    const db = database([2], { statuses: { endpoints: 1, inactive: () => true, open } });
    await upgrade(db.conn);
    expect(db.holdRanges).toEqual(['ep_000001: … < createdAt ≤ 5000', 'ep_000001: 5000 < createdAt ≤ 5003']);
  });

  it('a stop within an endpoint’s hold: the next start goes on after the last range held, not from its first delivery', async () => {
    const stop = new AbortController();
    const progress = { upgrade: null };
    const open = () => Array.from({ length: 35_000 }, (_, i) => i + 1);
    let ranges = 0;
    const onHold = () => ++ranges === 3 && stop.abort(new Error('SIGTERM while starting'));
    const first = database([2], { statuses: { endpoints: 1, inactive: () => true, open, onHold }, progress });
    await expect(upgrade(first.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(progress.upgrade).toEqual({ from: 2, to: SCHEMA_VERSION, holder: expect.any(String), after: { holding: 'ep_000001@20000' } });

    const next = database([2], { statuses: { endpoints: 1, inactive: () => true, open }, progress });
    await upgrade(next.conn);
    expect(next.holdRanges).toEqual(['ep_000001: 20000 < createdAt ≤ 30000', 'ep_000001: 30000 < createdAt ≤ 35000']);
    expect(progress.upgrade).toBeNull();
  });

  it('a stop while the record (its claim, before any step) waits for a majority that does not answer ends the upgrade, the lease given up', async () => {
    const stop = new AbortController();
    const db = database([2], { deliveries: 15_000, onProgressUnanswered: () => stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.batches).toEqual([]);
    expect(db.writes).toEqual(['lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a batch a majority did not confirm in time is sent again (the same range), and the upgrade goes on', async () => {
    const log: string[] = [];
    const db = database([2], { deliveries: 15_000, unconfirmed: 1 });
    await upgradeLayout(db.conn, 'mongodb://db-0', (line) => log.push(line));
    expect(db.batches).toEqual(['… < _id ≤ dl_010000', 'dl_010000 < _id ≤ dl_015000']);
    // The lease renewed before the second try: minutes of them would outlast it.
    expect(db.writes.slice(0, 5)).toEqual(['lease taken', 'hold index built', 'lease taken', 'batch not confirmed', 'lease taken']);
    expect(db.writes.slice(-3)).toEqual([`version ${SCHEMA_VERSION}`, 'progress forgotten', 'lease given up (0, by its holder: true)']);
    expect(log.join('\n')).toContain('step deliveries, the batch after the first id not confirmed (waiting for replication timed out); trying again');
  });

  it('a stop while a batch waits for its answer ends the upgrade at once, the lease given up', async () => {
    const stop = new AbortController();
    const db = database([2], { deliveries: 15_000, onBatchUnanswered: () => stop.abort(new Error('SIGTERM while starting')) });
    await expect(upgrade(db.conn, stop.signal)).rejects.toThrow('SIGTERM while starting');
    expect(db.writes).toEqual(['lease taken', 'hold index built', 'lease taken', 'lease given up (0, by its holder: true)']);
  });

  it('a step that outlasts the lease (a hold’s range answered late) keeps it: renewed every 30 s while it runs', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { promise: answered, resolve: answer } = Promise.withResolvers<void>();
      const db = database([2], { statuses: { endpoints: 1, inactive: () => true, answered } });
      const upgrading = upgrade(db.conn);
      await vi.waitFor(() => expect(db.held).toEqual(['ep_000001']));
      const takes = () => db.writes.filter((w) => w === 'lease taken').length;
      // Taken, then renewed once the hold's index was built.
      expect(takes()).toBe(2);
      // Two minutes of the hold: the lease (120 s) renewed each quarter of it.
      await vi.advanceTimersByTimeAsync(120_000);
      expect(takes()).toBe(6);
      answer();
      await upgrading;
      expect(db.writes.at(-1)).toBe('lease given up (0, by its holder: true)');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a process whose lease ran out while another took the upgrade over stops at its next record, the other’s record left as it was', async () => {
    const log: string[] = [];
    const progress: { upgrade: MetaDoc['upgrade'] | null } = { upgrade: null };
    // 35,000 deliveries; another process takes the upgrade over after this one's first record, its claim (and the version before this one reads it again).
    const db = database([2, 2, SCHEMA_VERSION], { deliveries: 35_000, progress, takenOverAfterRecords: 1 });
    await upgradeLayout(db.conn, 'mongodb://db-0', (line) => log.push(line));
    expect(db.batches).toEqual(['… < _id ≤ dl_010000']);
    expect(db.writes).toContain('record refused');
    expect(progress.upgrade?.holder).toBe('another process');
    expect(progress.upgrade?.after).toEqual({});
    expect(db.writes).not.toContain(`version ${SCHEMA_VERSION}`);
    expect(log.join('\n')).toContain('another process upgraded the layout, or took its upgrade over, meanwhile');
  });

  it('a process that stalled before its first record stops there when another took the upgrade over and recorded it meanwhile', async () => {
    const log: string[] = [];
    const progress: { upgrade: MetaDoc['upgrade'] | null } = { upgrade: null };
    const db = database([2, 2, SCHEMA_VERSION], { deliveries: 35_000, progress, takenOverBeforeFirstRecord: true });
    await upgradeLayout(db.conn, 'mongodb://db-0', (line) => log.push(line));
    expect(db.writes).toContain('record refused');
    // The other's record stands: not put back to this one's first batch.
    expect(progress.upgrade).toEqual({ from: 2, to: SCHEMA_VERSION, holder: 'another process', after: { deliveries: 'dl_030000' } });
    expect(db.writes).not.toContain(`version ${SCHEMA_VERSION}`);
  });

  it('an open delivery whose createdAt is not a number fails the upgrade naming its endpoint, before anything of that endpoint is held', async () => {
    const open = (id: string) => (id === 'ep_000002' ? [null, 5, 6] : [1, 2]);
    const db = database([2], { statuses: { endpoints: 3, inactive: () => true, open } });
    await expect(upgrade(db.conn)).rejects.toThrow('an open delivery of endpoint ep_000002 has createdAt null, not a number');
    expect(db.held).toEqual(['ep_000001']);
    expect(db.writes).not.toContain(`version ${SCHEMA_VERSION}`);
  });

  it('a createdAt that sorts after every number (a string, a date) is found by the seek after the walk: the upgrade fails naming the endpoint', async () => {
    // 10,000 numbers fill a page; the walk past them (numbers only) never reaches the string.
    const open = () => [...Array.from({ length: 10_000 }, (_, i) => i + 1), '2026-01-01T00:00:00Z'];
    const db = database([2], { statuses: { endpoints: 1, inactive: () => true, open } });
    await expect(upgrade(db.conn)).rejects.toThrow('an open delivery of endpoint ep_000001 has createdAt "2026-01-01T00:00:00Z", not a number');
    expect(db.writes).not.toContain(`version ${SCHEMA_VERSION}`);
  });

  it('a takeover resuming within an endpoint that finds no page more still seeks its newest: a string past the last range fails it', async () => {
    // 20,000 numbers and a string; the hold recorded up to 20,000 by a process that stopped there.
    const progress: { upgrade: MetaDoc['upgrade'] | null } = { upgrade: { from: 2, to: SCHEMA_VERSION, after: { holding: 'ep_000001@20000' } } };
    const open = () => [...Array.from({ length: 20_000 }, (_, i) => i + 1), 'soon'];
    const db = database([2], { statuses: { endpoints: 1, inactive: () => true, open }, progress });
    await expect(upgrade(db.conn)).rejects.toThrow('an open delivery of endpoint ep_000001 has createdAt "soon", not a number');
    expect(db.holdRanges).toEqual([]);
  });

  it('a process whose lease ran out while another finished the upgrade stops at its next record, reads the version, writes nothing more', async () => {
    const log: string[] = [];
    // 35,000 deliveries; the version written by another after this one's first record (its claim).
    const db = database([2, 2, SCHEMA_VERSION], { deliveries: 35_000, upgradedAfterRecords: 1 });
    await upgradeLayout(db.conn, 'mongodb://db-0', (line) => log.push(line));
    expect(db.batches).toEqual(['… < _id ≤ dl_010000']);
    expect(db.writes).not.toContain(`version ${SCHEMA_VERSION}`);
    expect(db.writes.at(-1)).toBe('lease given up (0, by its holder: true)');
    expect(log.join('\n')).toContain('another process upgraded the layout, or took its upgrade over, meanwhile');
  });
});
