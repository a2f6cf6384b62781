import { MongoServerError, MongoWriteConcernError } from 'mongodb';

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

/**
 * True when `err` says a majority did not confirm a write in time: the write may stand on the
 * primary or be rolled back in a failover; only a later read (or the same write again) tells.
 */
export function isWriteConcernError(err: unknown): boolean {
  return err instanceof MongoWriteConcernError;
}
