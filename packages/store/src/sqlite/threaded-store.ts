import { SqliteJobLeaseRepo } from './job-lease-repo.ts';
import { Worker } from 'node:worker_threads';
import { SqliteAlertSettingsRepo } from './alert-settings-repo.ts';
import { SqliteApiKeyRepo } from './api-key-repo.ts';
import { SqliteConsumerRepo } from './consumer-repo.ts';
import { SqliteDeliveryRepo } from './delivery-repo.ts';
import { SqliteEndpointRepo } from './endpoint-repo.ts';
import { SqliteEgressIpRepo } from './egress-ip-repo.ts';
import { SqliteEndpointStatsRepo } from './endpoint-stats-repo.ts';
import { SqliteEventTypeRepo } from './event-type-repo.ts';
import { SqliteMessageRepo } from './message-repo.ts';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './open-sqlite-store.ts';
import { SqliteOrgRepo } from './org-repo.ts';
import { SqlitePortalTokenRepo } from './portal-token-repo.ts';
import { SqliteRecoveryRepo } from './recovery-repo.ts';
import { SqliteSealingRepo } from './sealing-repo.ts';
import { deserializeError, type SerializedError } from './remote-error.ts';

/** One store call sent to the worker (in an array: the calls of one turn of the event loop). */
export type StoreCall = { id: number; repo: string; method: string; args: unknown[] } | { id: number; close: true };
/** Its answer (in an array, likewise). */
export type StoreReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

const WORKER_MAIN = new URL('./store-worker.ts', import.meta.url);
const WORKER_YOUNG_GENERATION_MB = 8;
const REPOS = {
  orgs: SqliteOrgRepo,
  apiKeys: SqliteApiKeyRepo,
  consumers: SqliteConsumerRepo,
  endpoints: SqliteEndpointRepo,
  eventTypes: SqliteEventTypeRepo,
  messages: SqliteMessageRepo,
  deliveries: SqliteDeliveryRepo,
  sealing: SqliteSealingRepo,
  recoveries: SqliteRecoveryRepo,
  portalTokens: SqlitePortalTokenRepo,
  alerts: SqliteAlertSettingsRepo,
  jobs: SqliteJobLeaseRepo,
  endpointStats: SqliteEndpointStatsRepo,
  egressIps: SqliteEgressIpRepo,
} as const;

/**
 * The SQLite store with its connection on a worker thread. node:sqlite is synchronous, so
 * in-thread every statement, commit and checkpoint stops the event loop: HTTP parsing, TLS
 * and signing wait behind the database. Here the caller's thread only posts calls and
 * reads answers, and the statements run on the worker (another core when there is one).
 * The store is the same code (group commit included, batching the calls that arrive
 * together); arguments and results are copied (structured clone) both ways, and errors are
 * rebuilt with their class. The schema is migrated here, before the worker starts, so a
 * database that cannot be opened throws at once, as `openSqliteStore` does.
 */
export function openThreadedSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const local = openSqliteStore(options);
  const { path, schemaVersion, migrationsApplied } = local;
  void local.close(); // synchronous for SQLite; the worker opens its own connection

  // The worker's objects live for one call: a small young generation is enough, and its
  // heap does not need to grow like the main thread's (RSS is a target: docs/benchmarks.md).
  const worker = new Worker(WORKER_MAIN, { workerData: { path }, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  // The worker keeps the process alive only while a call is waiting for it.
  worker.unref();
  const settle = (reply: StoreReply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(deserializeError(reply.error));
  };
  const failAll = (err: Error) => {
    failure ??= err;
    for (const call of pending.values()) call.reject(err);
    pending.clear();
  };
  worker.on('message', (replies: StoreReply[]) => replies.forEach(settle));
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the SQLite store's worker exited (code ${code})`)));

  // Calls made during one turn of the event loop go in one message: a message costs more
  // than the copying of its contents.
  let outbox: StoreCall[] = [];
  const flush = () => {
    const calls = outbox;
    outbox = [];
    if (!failure) worker.postMessage(calls);
  };
  const send = (call: Omit<StoreCall, 'id'>): Promise<unknown> => {
    if (failure) return Promise.reject(failure);
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      if (outbox.length === 0) setImmediate(flush);
      outbox.push({ ...call, id } as StoreCall);
    });
  };
  const remote = (repo: keyof typeof REPOS) => {
    const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const method of Object.getOwnPropertyNames(REPOS[repo].prototype)) {
      if (method === 'constructor') continue;
      // The port takes plain data: arguments cross as they are.
      methods[method] = (...args) => send({ repo, method, args });
    }
    return methods;
  };

  let closed: Promise<void> | undefined;
  const store: Record<string, unknown> = {
    path,
    schemaVersion,
    migrationsApplied,
    close: () => {
      closed ??= (async () => {
        if (!failure) await send({ close: true });
        failure ??= new Error('the SQLite store is closed');
        await worker.terminate();
      })();
      return closed;
    },
  };
  for (const repo of Object.keys(REPOS) as (keyof typeof REPOS)[]) store[repo] = remote(repo);
  return store as unknown as SqliteStore;
}
