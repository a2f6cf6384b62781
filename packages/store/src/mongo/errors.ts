import {
  MongoDriverError,
  MongoError,
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

/**
 * A write the primary applied and a majority did not confirm in time (WriteConcernFailed, 64, with
 * no write refused): it stands on the primary, and a later write of the same client's, confirmed
 * by a majority, confirms it too (one oplog) — unless a failover comes between them.
 */
export function isUnconfirmedWrite(err: unknown): boolean {
  return err instanceof MongoWriteConcernError && err.code === 64 && writeErrorsOf(err).length === 0;
}

// Server codes of a replica set or shard without a usable primary, or a member unreachable:
// what a failover answers (the driver retries a retryable write once, then throws).
const FAILOVER_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  63, // StaleShardVersion (mongos: a chunk migrating, its own retries spent)
  64, // WriteConcernFailed (a majority did not confirm in time; a bulk write carries it too)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference (mongos: a shard without a primary)
  150, // StaleEpoch (mongos: a collection's sharding changed under the request)
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  244, // TransactionCoordinatorReachedAbortDecision (a sharded transaction aborted: safe to run again)
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13388, // StaleConfig (mongos: a chunk migrating, its own retries spent)
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);
// Codes of a wait that ran out: the database too slow to answer, overloaded or with a primary
// going away (an election makes these too).
const OVERLOAD_CODES = new Set([
  50, // MaxTimeMSExpired: the server stopped the operation at the maxTimeMS it was given (a point read's, a count's)
  202, // NetworkInterfaceExceededTimeLimit (mongos: a shard not answering in time)
  262, // ExceededTimeLimit (mongos or an internal request not answered in time, as during a step-down)
  407, // PooledConnectionAcquisitionExceededTimeLimit (mongos: no connection to a shard free in time)
]);
// Labels of a failover, and of a transaction that withTransaction gave up on (its 120 s spent on
// conflicts or an unconfirmed commit); `RetryableError`: a newer server's work refused, retried first.
const FAILOVER_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'UnknownTransactionCommitResult', 'RetryableError'];
// A newer server refusing work it is too loaded to take (the driver retries it with backoff first).
const OVERLOAD_LABEL = 'SystemOverloadedError';

/**
 * What a store call's error says of the database, when it says the call can only be tried
 * again later (its outcome unknown: the same write again, or a read, tells):
 * - `failover`: an election or a lost member: a majority that did not confirm a write in time
 *   (it may stand on the primary or be rolled back), a primary that stepped down or shut down,
 *   no primary to send to, a connection lost before the answer, a member gone from the topology,
 *   a transaction given up;
 * - `overload`: a wait that ran out, or work refused: no connection of the pool free in time
 *   (waitQueueTimeoutMS), an operation's own `maxTimeMS` run out on the server, mongos's or a
 *   shard's time limit, an operation's `timeoutMS` (of a driver that honours it: 7.x ignores
 *   it), a server too loaded.
 * null for an error of the request itself (a duplicate key, a bad query, authorization) or a
 * setting to fix (a write concern the set cannot satisfy at all).
 */
export function unavailableKind(err: unknown): 'failover' | 'overload' | null {
  // Refused as well (a duplicate key): the request's own error, which the repo answers. Only a
  // wait that ran out, or a primary going away during it, is a failover's.
  if (err instanceof MongoWriteConcernError) {
    const wtimeout = (err.errInfo as { wtimeout?: unknown } | undefined)?.wtimeout === true;
    const code = typeof err.code === 'number' ? err.code : undefined;
    const waited = wtimeout || (code !== undefined && (FAILOVER_CODES.has(code) || OVERLOAD_CODES.has(code)));
    return writeErrorsOf(err).length === 0 && waited ? 'failover' : null;
  }
  if (err instanceof MongoOperationTimeoutError) return 'overload';
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || err instanceof MongoServerClosedError) return 'failover';
  // The driver's own pool errors, by name (their classes are not exported): no connection came
  // free in time; a member's pool closed (it left the topology) between choosing it and sending.
  if (err instanceof MongoDriverError && err.name === 'MongoWaitQueueTimeoutError') return 'overload';
  if (err instanceof MongoDriverError && err.name === 'MongoPoolClosedError') return 'failover';
  if (!(err instanceof MongoServerError)) return null;
  const code = typeof err.code === 'number' ? err.code : undefined;
  if (err.hasErrorLabel(OVERLOAD_LABEL) || (code !== undefined && OVERLOAD_CODES.has(code))) return 'overload';
  return FAILOVER_LABELS.some((label) => err.hasErrorLabel(label)) || (code !== undefined && FAILOVER_CODES.has(code)) ? 'failover' : null;
}

/**
 * Whether a call failed before it reached a server: no pooled connection in time, no server to
 * send to, a pool cleared under the checkout — safe to send again where a second write would
 * count twice. Not always so: a retryable write whose first try was sent (its connection lost
 * after, or a step-down cutting its majority's wait) and whose retry found no server or no
 * connection reads as not sent too, since the driver throws the retry's error and only a
 * server sets NoWritesPerformed. Rare (a retry in an outage); its caller says what it costs.
 */
export function notSent(err: unknown): boolean {
  if (err instanceof MongoServerSelectionError) return true;
  // By name (the classes are not exported). Not PoolClearedOnNetworkError: it also ends operations in flight.
  return err instanceof MongoError && (err.name === 'MongoWaitQueueTimeoutError' || err.name === 'MongoPoolClearedError');
}

/** Whether a transaction's commit was given up on unconfirmed (UnknownTransactionCommitResult): it may have been applied. */
export function isUnknownCommit(err: unknown): boolean {
  return err instanceof MongoError && err.hasErrorLabel('UnknownTransactionCommitResult');
}

/** Whether the call can only be tried again later, its outcome unknown (unavailableKind): a 503, not a 500. */
export function isFailoverError(err: unknown): boolean {
  return unavailableKind(err) !== null;
}
