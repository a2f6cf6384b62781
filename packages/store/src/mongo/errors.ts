import {
  MongoDriverError,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';

// MongoDB's error code for a unique index violation (E11000 duplicate key).
const DUPLICATE_KEY = 11000;

/**
 * True when `err` is a duplicate-key error on the index named `indexName` (MongoDB names
 * it in the message), so a clash on another index, such as a duplicate `_id`, is not
 * mistaken for it.
 */
export function isDuplicateKey(err: unknown, indexName: string): boolean {
  if (err instanceof MongoServerError && err.code === DUPLICATE_KEY && err.message.includes(` index: ${indexName} `)) return true;
  // A refused write whose answer also says the majority did not confirm in time: the driver
  // throws the write-concern error, the duplicate key inside its answer's write errors.
  return writeErrorsOf(err).some((e) => e.code === DUPLICATE_KEY && String(e.errmsg ?? '').includes(` index: ${indexName} `));
}

/** The write errors carried by a write-concern error's answer (a write refused, as well as unconfirmed). */
function writeErrorsOf(err: unknown): { code?: number; errmsg?: string }[] {
  if (!(err instanceof MongoWriteConcernError)) return [];
  const found = (err.result as { writeErrors?: unknown } | undefined)?.writeErrors;
  return Array.isArray(found) ? found : [];
}

// Server codes of a replica set or shard without a usable primary, or a member unreachable or
// too slow: what a failover answers (the driver retries a retryable write once, then throws).
const FAILOVER_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  63, // StaleShardVersion (mongos: a chunk migrating, its own retries spent)
  64, // WriteConcernFailed (a majority did not confirm in time; a bulk write carries it too)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference (mongos: a shard without a primary)
  150, // StaleEpoch (mongos: a collection's sharding changed under the request)
  202, // NetworkInterfaceExceededTimeLimit (mongos: a shard not answering in time)
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  244, // TransactionCoordinatorReachedAbortDecision (a sharded transaction aborted: safe to run again)
  262, // ExceededTimeLimit (mongos or an internal request not answered in time, as during a step-down)
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13388, // StaleConfig (mongos: a chunk migrating, its own retries spent)
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);
// Labels of the same, and of a transaction that withTransaction gave up on (its 120 s spent on
// conflicts or an unconfirmed commit).
// Newer servers refuse work they are too loaded to take (the driver retries them with backoff first).
const FAILOVER_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'UnknownTransactionCommitResult', 'SystemOverloadedError', 'RetryableError'];
// The driver's own, by name (their classes are not exported): no connection of the pool came
// free within waitQueueTimeoutMS, as when every one waits on a primary that is going away; a
// member's pool closed (it left the topology: a reconfig) between choosing it and sending.
const POOL_ERRORS = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);

/**
 * True when `err` is a failover's, as an election or a lost member gives: a majority that did
 * not confirm a write in time (it may stand on the primary or be rolled back), a primary that
 * stepped down or shut down, no primary to send to, a connection lost before the answer, a
 * transaction given up, and the waits that run out meanwhile: a connection of the pool, a
 * lock, an operation's time limit. A write's outcome is then unknown: the same
 * write again, or a read, tells. An error of the request itself (a duplicate key, a bad query,
 * authorization) is not one.
 */
export function isFailoverError(err: unknown): boolean {
  // Refused as well (a duplicate key): the request's own error, which the repo answers. And a
  // write concern the set cannot satisfy at all (a bad `w` in MONGODB_URL) is a setting to fix,
  // not a failover: only a wait that ran out, or a primary going away during it, is one.
  if (err instanceof MongoWriteConcernError) {
    const wtimeout = (err.errInfo as { wtimeout?: unknown } | undefined)?.wtimeout === true;
    return writeErrorsOf(err).length === 0 && (wtimeout || (typeof err.code === 'number' && FAILOVER_CODES.has(err.code)));
  }
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || err instanceof MongoOperationTimeoutError) return true;
  // A member that left the topology between being chosen and being sent to: nothing was sent.
  if (err instanceof MongoServerClosedError) return true;
  if (err instanceof MongoDriverError && POOL_ERRORS.has(err.name)) return true;
  if (!(err instanceof MongoServerError)) return false;
  return FAILOVER_LABELS.some((label) => err.hasErrorLabel(label)) || (typeof err.code === 'number' && FAILOVER_CODES.has(err.code));
}

// Of those, the ones that say the database is busy, not changing hands: a wait that ran out
// (the pool's, mongos's or a shard's time limit) or work refused. (MongoOperationTimeoutError,
// of the driver's `timeoutMS`, which 7.x ignores, is kept for a driver that honours it again.)
const OVERLOAD_CODES = new Set([202, 262]);

/**
 * True when a failover error (isFailoverError) is a wait that ran out or work refused: the
 * database too slow to answer, overloaded or with a primary going away (an election makes these
 * too), rather than a member known gone. Its 503 says so, for the operator to check the members
 * and then the load (docs/operations.md).
 */
export function isOverloadError(err: unknown): boolean {
  if (!isFailoverError(err)) return false;
  if (err instanceof MongoOperationTimeoutError) return true;
  if (err instanceof MongoDriverError && err.name === 'MongoWaitQueueTimeoutError') return true;
  if (!(err instanceof MongoServerError) || err instanceof MongoWriteConcernError) return false;
  return err.hasErrorLabel('SystemOverloadedError') || (typeof err.code === 'number' && OVERLOAD_CODES.has(err.code));
}
