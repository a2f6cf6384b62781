import { withEchoedPayload } from './echoed-payload.ts';
import { jobsIn, ReceivedEndpoints } from './job-endpoints.ts';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './open-sqlite-store.ts';
import { SQLITE_REPOS, type RepoName } from './repos.ts';
import { StoreThread } from './store-thread.ts';

/** Per repo, the methods the reader answers. */
export type Reads = Partial<Record<RepoName, ReadonlySet<string>>>;

/**
 * The calls a second, read-only connection answers on a thread of its own (WAL lets it read
 * beside the writer): the ones every API request makes, so that they do not wait behind the
 * writer's group commit (3–5 ms under load). Each is one statement or one read transaction
 * (SqliteConnection.snapshot), so it sees every write committed before it started — and a
 * write's promise settles after its commit, so a caller that awaited a write reads it here too.
 */
export const READS: Reads = {
  apiKeys: new Set(['findByHash']),
  eventTypes: new Set(['list']),
  // The detail reads: bounded by the attempt paging, and off the writer, so six callers
  // reading a long history do not queue another organisation's sends behind them.
  messages: new Set(['get']),
  deliveries: new Set(['show', 'attempts']),
  // Not endpointStats.rollups: the writer adds the rollups it carries, not yet written (endpoint-stats-repo.ts).
};

/**
 * The SQLite store with its connection on a worker thread. node:sqlite is synchronous, so
 * in-thread every statement, commit and checkpoint stops the event loop: HTTP parsing, TLS
 * and signing wait behind the database. Here the caller's thread only posts calls and
 * reads answers, and the statements run on the worker (another core when there is one).
 * The store is the same code (group commit included, batching the calls that arrive
 * together); arguments and results are copied (structured clone) both ways, and errors are
 * rebuilt with their class. The schema is migrated here, before the worker starts, so a
 * database that cannot be opened throws at once, as `openSqliteStore` does. `reads`: the calls
 * the reader answers (READS; a test widens it to see where a call goes).
 */
export function openThreadedSqliteStore(options: SqliteStoreOptions, reads: Reads = READS): SqliteStore {
  const local = openSqliteStore(options);
  const { path, schemaVersion, migrationsApplied } = local;
  void local.close(); // synchronous for SQLite; the worker opens its own connection

  const writer = new StoreThread(path, 'writer');
  // The endpoints the writer's thread left out of the jobs it claimed (job-endpoints.ts): put back
  // as each answer settles, in the order they crossed. Only the writer claims.
  const received = new ReceivedEndpoints();
  const withJobs = (call: { repo: string; method: string; args: unknown[] }) =>
    writer.send(call).then((value) => {
      received.putBack(jobsIn(call, value));
      return withEchoedPayload(call, value);
    });
  // The reader starts with the first call it answers: a process that never makes one (a
  // dispatcher, the admin CLI) does not pay for its thread. A private in-memory database
  // cannot be opened twice, so there the writer answers everything; and if the reader
  // thread fails, the writer answers its calls from then on (the store stays whole).
  let reader: StoreThread | undefined;
  let closing = false;
  let readerLost = false;
  const canRead = path !== ':memory:' && path !== '';
  const read = (call: { repo: string; method: string; args: unknown[] }): Promise<unknown> => {
    if (!canRead || closing || writer.failure) return writer.send(call);
    reader ??= new StoreThread(path, 'reader');
    const thread = reader;
    if (thread.failure) {
      // Said once: from here on the API's reads wait behind the writer's commits again.
      if (!readerLost) process.emitWarning(`the SQLite store's reader thread failed (${thread.failure.message}); the writer answers its reads`);
      readerLost = true;
      return writer.send(call);
    }
    // A read is safe to repeat: one the reader's thread took down with it goes to the writer.
    return thread.send(call).catch((err: unknown) => (thread.failure && !closing ? writer.send(call) : Promise.reject(err)));
  };
  const remote = (repo: RepoName) => {
    const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const method of Object.getOwnPropertyNames(SQLITE_REPOS[repo].prototype)) {
      if (method === 'constructor') continue;
      // The port takes plain data: arguments cross as they are. The calls that answer jobs go to
      // the writer, whatever `reads` says: only its answers are put back together.
      if ((repo === 'messages' && method === 'create') || (repo === 'deliveries' && (method === 'claim' || method === 'claimMany'))) {
        methods[method] = (...args) => withJobs({ repo, method, args });
      } else if (reads[repo]?.has(method)) methods[method] = (...args) => read({ repo, method, args });
      else methods[method] = (...args) => writer.send({ repo, method, args });
    }
    return methods;
  };

  let closed: Promise<void> | undefined;
  const store: Record<string, unknown> = {
    path,
    schemaVersion,
    migrationsApplied,
    groupsWrites: true,
    close: () => {
      closing = true; // no reader is started, nor a read repeated, from here on
      closed ??= (async () => {
        const reason = new Error('the SQLite store is closed');
        // The reader first: the writer's close checkpoints the WAL into the database file
        // (and removes it) only when no other connection still reads.
        // A reader that failed has nothing to commit: its error must not keep the writer open.
        await reader?.close(reason).catch(() => {});
        await writer.close(reason);
      })();
      return closed;
    },
  };
  for (const repo of Object.keys(SQLITE_REPOS) as RepoName[]) store[repo] = remote(repo);
  return store as unknown as SqliteStore;
}
