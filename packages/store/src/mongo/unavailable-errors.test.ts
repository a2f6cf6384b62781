// A failover's errors leave the MongoDB store as 503s, without a server: repos that throw the
// driver's own error classes.
import { UnavailableError, toErrorResponse } from '@wirehook/core';
import { createRequire } from 'node:module';
import {
  MongoDriverError,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import type { MongoConnection } from './connection.ts';
import { mongoStoreOn } from './open-mongo-store.ts';
import { isDuplicateKey, isUnknownCommit, notSent } from './errors.ts';
import { FAILOVER_MESSAGE, OVERLOAD_MESSAGE, withUnavailableErrors } from './unavailable-errors.ts';

// The driver's pool errors, as it makes them: their classes are not exported, so a rename in a
// driver upgrade fails here rather than turning them into 500s.
const poolErrors = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js') as Record<string, new (...args: unknown[]) => Error>;
const waitQueueTimeout = () => new poolErrors['WaitQueueTimeoutError']!('Timed out while checking out a connection from connection pool', 'db-0:27017');
const poolCleared = (name: 'PoolClearedError' | 'PoolClearedOnNetworkError') =>
  new (poolErrors[name] as unknown as new (pool: object) => Error)({ address: 'db-0:27017', serverError: new Error('connection reset') });
const poolClosed = () => new (poolErrors['PoolClosedError'] as unknown as new (pool: object) => Error)({ address: 'db-0:27017' });

class FakeRepo {
  readonly #fail: () => Error;
  constructor(fail: () => Error) {
    this.#fail = fail;
  }
  async get(id: string): Promise<string> {
    if (id === 'fail') throw this.#fail();
    return `got ${id}`; // `this` is the repo: its private field was read
  }
  now(): never {
    throw this.#fail();
  }
}

const open = (fail: () => Error) =>
  withUnavailableErrors({ dbName: 'db', orgs: new FakeRepo(fail), close: async () => {} } as unknown as Store & { dbName: string });
const orgs = (store: Store) => store.orgs as unknown as FakeRepo;

describe('withUnavailableErrors', () => {
  it.each([
    [
      'a majority not confirming in time',
      () => new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never),
      'failover',
    ],
    ['a primary stepping down', () => new MongoServerError({ code: 189, errmsg: 'primary stepped down' }), 'failover'],
    ['a lost connection', () => new MongoNetworkError('connection 4 to db-0:27017 closed'), 'failover'],
    [
      'a write the driver labels retryable',
      () => new MongoServerError({ code: 6, errmsg: 'host unreachable', errorLabels: ['RetryableWriteError'] }),
      'failover',
    ],
    ['a shard without a primary (mongos)', () => new MongoServerError({ code: 133, errmsg: 'Could not find host matching read preference' }), 'failover'],
    [
      'a lock or a shard not answering in time (ExceededTimeLimit)',
      () => new MongoServerError({ code: 262, errmsg: 'operation exceeded time limit' }),
      'overload',
    ],
    [
      'mongos finding no connection to a shard free in time (PooledConnectionAcquisitionExceededTimeLimit)',
      () => new MongoServerError({ code: 407, errmsg: 'Timed out waiting for a connection to shard-1' }),
      'overload',
    ],
    [
      'an operation past a driver’s timeoutMS (ignored by 7.x, kept for one that honours it)',
      () => new MongoOperationTimeoutError('Timed out during socket read (500ms)'),
      'overload',
    ],
    ['no connection of the pool free in time', () => waitQueueTimeout(), 'overload'],
    ['a member’s pool closed as it left the topology', () => poolClosed(), 'failover'],
    ['a member closed between being chosen and sent to', () => new MongoServerClosedError(), 'failover'],
    [
      'a server too loaded to take the work (a newer server’s label)',
      () => new MongoServerError({ code: 462, errmsg: 'overloaded', errorLabels: ['SystemOverloadedError', 'RetryableError'] }),
      'overload',
    ],
    [
      'an operation past the maxTimeMS it was given (MaxTimeMSExpired, 50: the list of months, a count)',
      () => new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' }),
      'overload',
    ],
    ['mongos: a shard not answering in time (202)', () => new MongoServerError({ code: 202, errmsg: 'NetworkInterfaceExceededTimeLimit' }), 'overload'],
    ['mongos: a chunk migrating, its retries spent (13388)', () => new MongoServerError({ code: 13388, errmsg: 'StaleConfig' }), 'failover'],
    ['mongos: a stale shard version, its retries spent (63)', () => new MongoServerError({ code: 63, errmsg: 'StaleShardVersion' }), 'failover'],
    ['mongos: sharding changed under the request (150)', () => new MongoServerError({ code: 150, errmsg: 'StaleEpoch' }), 'failover'],
    [
      'a sharded transaction its coordinator aborted',
      () => new MongoServerError({ code: 244, errmsg: 'TransactionCoordinatorReachedAbortDecision' }),
      'failover',
    ],
    [
      'a transaction withTransaction gave up on',
      () => new MongoServerError({ code: 112, errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] }),
      'failover',
    ],
  ] as const)('%s: 503, unavailable, with the cause, as a %s', async (_what, fail, kind) => {
    const store = open(fail);
    const err = await orgs(store)
      .get('fail')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(toErrorResponse(err).status).toBe(503);
    expect((err as Error).message).toBe(kind === 'overload' ? OVERLOAD_MESSAGE : FAILOVER_MESSAGE);
    // Said apart for a caller that holds its own work back while the database is overloaded (the dispatcher's claims).
    expect((err as UnavailableError).overloaded).toBe(kind === 'overload');
    expect((err as Error).cause).toBeInstanceOf(Error);
    expect(() => orgs(store).now()).toThrow(UnavailableError); // thrown, not only rejected
  });

  it.each([50, 202, 262])('a majority that did not answer in time (write concern %i: maxTimeMS, mongos or a step-down) is a failover’s 503', async (code) => {
    const late = new MongoWriteConcernError({ ok: 1, writeConcernError: { code, errmsg: 'exceeded time limit' } } as never);
    const err = await orgs(open(() => late))
      .get('fail')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toBe(FAILOVER_MESSAGE);
  });

  it("a write concern the replica set cannot satisfy (a bad w in MONGODB_URL) is a setting's error, not a failover", async () => {
    const unsatisfiable = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' } } as never);
    await expect(orgs(open(() => unsatisfiable)).get('fail')).rejects.toBe(unsatisfiable);
  });

  it('passes every other error as it is, and answers as the repo does', async () => {
    const duplicate = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' });
    await expect(orgs(open(() => duplicate)).get('fail')).rejects.toBe(duplicate);
    // Another of the driver's own errors (a bad option, a cursor used after close) is a bug of ours.
    const misuse = new MongoDriverError('Cursor is closed');
    await expect(orgs(open(() => misuse)).get('fail')).rejects.toBe(misuse);
    const plain = new Error('a bug');
    await expect(orgs(open(() => plain)).get('fail')).rejects.toBe(plain);
    const store = open(() => plain);
    expect(await orgs(store).get('o1')).toBe('got o1');
    expect((store as unknown as { dbName: string }).dbName).toBe('db');
    await expect(store.close()).resolves.toBeUndefined();
  });

  it("is how openMongoStore's store answers: a connection lost under a repo's read is a 503", async () => {
    // Every collection of this connection answers any call with a lost connection.
    const lost = new MongoNetworkError('connection 4 to 10.0.3.7:27017 closed');
    const collection = new Proxy({}, { get: () => () => Promise.reject(lost) });
    const conn = new Proxy({}, { get: () => collection }) as unknown as MongoConnection;
    const err = await mongoStoreOn(conn, 'wirehook')
      .orgs.get('org_1' as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(toErrorResponse(err).body).toEqual({ error: 'unavailable', message: FAILOVER_MESSAGE }); // no address of a member
    expect((err as Error).cause).toBe(lost);
  });

  it('a duplicate key whose answer also says the majority did not confirm in time is the duplicate key, not a 503', async () => {
    const refused = new MongoWriteConcernError({
      ok: 1,
      n: 0,
      writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error collection: wirehook.consumers index: consumers_external_id dup key' }],
      writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
    } as never);
    expect(isDuplicateKey(refused, 'consumers_external_id')).toBe(true);
    expect(isDuplicateKey(refused, '_id_')).toBe(false);
    await expect(orgs(open(() => refused)).get('fail')).rejects.toBe(refused);
  });
});

describe('errors that say what a write did', () => {
  it.each([
    ['no pooled connection in time', waitQueueTimeout, true],
    ['no server to send to', () => new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as never), true],
    ['a pool cleared under the checkout', () => poolCleared('PoolClearedError'), true],
    ['a pool cleared by its monitor (it ends operations in flight too)', () => poolCleared('PoolClearedOnNetworkError'), false],
    ['a connection lost', () => new MongoNetworkError('connection 4 to db-0:27017 closed'), false],
    ['a primary stepping down', () => new MongoServerError({ code: 189, errmsg: 'primary stepped down' }), false],
  ] as const)('%s: not sent is %s', (_what, make, expected) => {
    expect(notSent(make())).toBe(expected);
  });

  it('a commit given up on unconfirmed is one that may have been applied; a write conflict’s is not', () => {
    expect(isUnknownCommit(new MongoServerError({ code: 91, errmsg: 'shutting down', errorLabels: ['UnknownTransactionCommitResult'] }))).toBe(true);
    expect(isUnknownCommit(new MongoServerError({ code: 112, errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] }))).toBe(false);
    expect(isUnknownCommit(new Error('a bug'))).toBe(false);
  });
});
