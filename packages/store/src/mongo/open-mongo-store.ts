import { unlessAborted } from '@wirehook/core';
import { MongoJobLeaseRepo } from './job-lease-repo.ts';
import { MongoClient, type Db, type Document, type MongoClientOptions } from 'mongodb';
import type { Store } from '../store.ts';
import { MongoAlertSettingsRepo } from './alert-settings-repo.ts';
import { MongoApiKeyRepo } from './api-key-repo.ts';
import { MongoConnection } from './connection.ts';
import { MongoConsumerRepo } from './consumer-repo.ts';
import { MongoDeliveryRepo } from './delivery-repo.ts';
import { MongoEndpointRepo } from './endpoint-repo.ts';
import { MongoEgressIpRepo } from './egress-ip-repo.ts';
import { flushRollups, MongoEndpointStatsRepo } from './endpoint-stats-repo.ts';
import { MongoEventTypeRepo } from './event-type-repo.ts';
import { dropRetiredIndexes, ensureIndexes } from './indexes.ts';
import { withUnavailableErrors } from './unavailable-errors.ts';
import { upgradeLayout } from './layout-upgrade.ts';
import { warnLongTransactions } from './held-recheck.ts';
import { ensureListedMonthIndexes, ensureMonths } from './month-buckets.ts';
import { MongoMessageRepo } from './message-repo.ts';
import { MongoOrgRepo } from './org-repo.ts';
import { MongoPortalTokenRepo } from './portal-token-repo.ts';
import { MongoRecoveryRepo } from './recovery-repo.ts';
import { MongoSealingRepo } from './sealing-repo.ts';

/** The database used when neither the options nor the URL name one. */
export const MONGO_DEFAULT_DB_NAME = 'wirehook';

// MongoDB 6.0 speaks wire version 17; the due-deliveries index ($in in a partial filter)
// needs it.
const MIN_WIRE_VERSION = 17;

/** Where the Mongo store keeps its data. */
export interface MongoStoreOptions {
  /** A MongoDB connection string, e.g. `mongodb://mongo:27017/?replicaSet=rs0`. */
  url: string;
  /** The database; default: the one named in `url`, else `wirehook`. */
  dbName?: string;
  /** Where a one-time layout upgrade tells its progress (default: standard error). */
  log?: (line: string) => void;
  /** Told of every command the store sends once it is open, as sent (query-plans.test.ts; diagnostics). */
  onCommand?: (command: Document, commandName: string) => void;
  /**
   * How long an operation may wait for a pooled connection, unless `url` sets
   * `waitQueueTimeoutMS` itself; default: as long as it takes (the driver's). Past it the call
   * fails as the overload's 503 (errors.ts). For the processes that answer requests alone: a
   * dispatcher's completion that gave up would leave its webhook to be sent again (docs/operations.md).
   */
  poolWaitMs?: number;
  /**
   * A stop asked while the store opens (a SIGTERM during a service's start): a layout upgrade
   * under way ends at its next batch and gives its lease up (layout-upgrade.ts), and the open
   * rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** The Store on MongoDB. */
export interface MongoStore extends Store {
  readonly dbName: string;
}

/**
 * Connects to MongoDB, checks that it can run transactions and ensures every index.
 *
 * Requirements: MongoDB 6.0 or newer, running as a replica set or a sharded cluster — the
 * store writes a message with its deliveries and counters, an endpoint with the cap check,
 * and an attempt with its outcome in multi-document transactions, which a standalone
 * mongod refuses. A single-node replica set will do (`mongod --replSet rs0`, then
 * `rs.initiate()` once).
 * @throws Error naming the server (credentials left out) when it cannot be reached, is
 * standalone or too old, or an index exists with another definition.
 */
export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const where = redact(options.url);
  let client: MongoClient;
  try {
    client = new MongoClient(options.url, mongoClientOptions(options));
  } catch (err) {
    throw new Error(`cannot connect to MongoDB at ${where}: ${messageOf(err)}`, { cause: err });
  }
  try {
    // A stop asked meanwhile ends the wait for a server (30 s when none answers), and the client
    // (closed below, and again once a connect it came too early to end has finished).
    await unlessAborted(client.connect(), options.signal, (connected) => connected.close());
  } catch (err) {
    if (options.signal?.aborted) {
      await client.close().catch(() => {});
      throw options.signal.reason;
    }
    throw new Error(`cannot connect to MongoDB at ${where}: ${messageOf(err)}`, { cause: err });
  }
  try {
    const dbName = options.dbName ?? dbNameIn(options.url) ?? MONGO_DEFAULT_DB_NAME;
    const db = client.db(dbName);
    // Each wait hears a stop (during an election one may wait 30 s for a server, past a stop's 20 s).
    const heard = <T>(work: Promise<T>) => unlessAborted(work, options.signal);
    await heard(requireTransactions(db, where));
    // Index builds a release adds (hours on a large collection) are not waited for by a stop: the
    // server goes on with them, and the next start's identical createIndexes waits for them there.
    await heard(ensureIndexes(db));
    const conn = new MongoConnection(client, db);
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    await upgradeLayout(conn, where, log, options.signal);
    await heard(dropRetiredIndexes(db));
    // What the rechecks after a resume are reckoned with (held-recheck.ts).
    await heard(warnLongTransactions(conn, log));
    // The bucket of the collections layouts before 4 kept (layout-upgrade.ts), if any.
    await heard(conn.readLegacyMonth());
    // This month's and next month's collections, before anything is written to them.
    await heard(ensureMonths(conn, Date.now()));
    // The months made before this release get its monthly indexes too (an index it adds).
    await heard(ensureListedMonthIndexes(conn));
    const onCommand = options.onCommand;
    if (onCommand !== undefined) client.on('commandStarted', (e) => onCommand(e.command, e.commandName));
    return mongoStoreOn(conn, dbName);
  } catch (err) {
    // Its own failure, or the stop's reason, is what the caller hears, not a close that failed.
    await client.close().catch(() => {});
    throw err;
  }
}

/** The client's options: `url`'s own settings win (the driver would let ours override them). */
export function mongoClientOptions(options: MongoStoreOptions): MongoClientOptions {
  // ignoreUndefined: an absent optional field is left out, as JSON.stringify does for SQLite.
  // No default write concern of ours: the deployment's own (or MONGODB_URL's `w`, `wtimeoutMS`)
  // holds for the writes that pin none (plans/plan.ts pins the claims').
  const client: MongoClientOptions = { ignoreUndefined: true, appName: 'wirehook', monitorCommands: options.onCommand !== undefined };
  if (options.poolWaitMs !== undefined && !urlSets(options.url, 'waitQueueTimeoutMS')) client.waitQueueTimeoutMS = options.poolWaitMs;
  return client;
}

/** Whether a connection string's query names `option` (the driver reads their names in any case, and nothing after a `#`). */
function urlSets(url: string, option: string): boolean {
  const beforeFragment = url.split('#', 1)[0]!;
  const query = beforeFragment.indexOf('?');
  if (query < 0) return false;
  const wanted = option.toLowerCase();
  return [...new URLSearchParams(beforeFragment.slice(query + 1)).keys()].some((key) => key.toLowerCase() === wanted);
}

/**
 * The store's repos on `conn`, ready (indexes, layout and months already made): a failover's
 * errors leave them as 503s (withUnavailableErrors), not opaque 500s.
 */
export function mongoStoreOn(conn: MongoConnection, dbName: string): MongoStore {
  const deliveries = new MongoDeliveryRepo(conn);
  return withUnavailableErrors({
    dbName,
    orgs: new MongoOrgRepo(conn),
    apiKeys: new MongoApiKeyRepo(conn),
    consumers: new MongoConsumerRepo(conn),
    endpoints: new MongoEndpointRepo(conn),
    eventTypes: new MongoEventTypeRepo(conn),
    messages: new MongoMessageRepo(conn),
    deliveries,
    sealing: new MongoSealingRepo(conn),
    recoveries: new MongoRecoveryRepo(conn),
    portalTokens: new MongoPortalTokenRepo(conn),
    alerts: new MongoAlertSettingsRepo(conn),
    jobs: new MongoJobLeaseRepo(conn),
    endpointStats: new MongoEndpointStatsRepo(conn),
    egressIps: new MongoEgressIpRepo(conn),
    close: async () => {
      // The due queue's healing going on, this process's rollups not yet written
      // (endpoint-stats-repo.ts), then the client.
      await deliveries.settle();
      await flushRollups(conn);
      await conn.close();
    },
  });
}

/** @throws Error when the server is standalone (no transactions) or older than 6.0. */
async function requireTransactions(db: Db, where: string): Promise<void> {
  const hello = await db.admin().command({ hello: 1 });
  if (typeof hello['maxWireVersion'] === 'number' && hello['maxWireVersion'] < MIN_WIRE_VERSION) {
    throw new Error(`MongoDB at ${where} is older than 6.0; Wirehook's store needs 6.0 or newer`);
  }
  if (typeof hello['setName'] !== 'string' && hello['msg'] !== 'isdbgrid') {
    throw new Error(
      `MongoDB at ${where} is a standalone server; Wirehook's store uses transactions, which need a replica set ` +
        `(a single node will do: start mongod with --replSet rs0 and run rs.initiate() once) or a sharded cluster`,
    );
  }
}

/** The database named in the path of a connection string, if any. */
function dbNameIn(url: string): string | undefined {
  const path = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(url)?.[1];
  return path === undefined || path === '' ? undefined : decodeURIComponent(path);
}

/** `url` without its user and password, for error messages. */
function redact(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)[^@/?]*@/i, '$1…@');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
