import { MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';

// MongoDB's error code for a unique index violation (E11000 duplicate key).
const DUPLICATE_KEY = 11000;

/**
 * True when `err` is a duplicate-key error on the index named `indexName` (MongoDB names
 * it in the message), so a clash on another index, such as a duplicate `_id`, is not
 * mistaken for it.
 */
export function isDuplicateKey(err: unknown, indexName: string): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY && err.message.includes(` index: ${indexName} `);
}

// Server codes of a primary going away mid-write: the write's fate is not known to the client.
const PRIMARY_GONE = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * True when `err` leaves a write's outcome unknown to the client, as in an election: a
 * majority that did not confirm it in time (it may stand on the primary or be rolled back),
 * a primary that stepped down or shut down, no primary to send it to, or a connection lost
 * before the answer (each after the driver's one retry of a retryable write). The same write
 * again, or a read, tells; an error of the request itself (a duplicate key, a bad query,
 * authorization) is not one of these.
 */
export function isUnknownWriteOutcome(err: unknown): boolean {
  if (err instanceof MongoWriteConcernError || err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (!(err instanceof MongoServerError)) return false;
  return err.hasErrorLabel('RetryableWriteError') || (typeof err.code === 'number' && PRIMARY_GONE.has(err.code));
}
