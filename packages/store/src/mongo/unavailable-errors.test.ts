// A failover's errors leave the MongoDB store as 503s, without a server: repos that throw the
// driver's own error classes.
import { UnavailableError, toErrorResponse } from '@wirehook/core';
import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { withUnavailableErrors } from './unavailable-errors.ts';

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
    ],
    ['a primary stepping down', () => new MongoServerError({ code: 189, errmsg: 'primary stepped down' })],
    ['a lost connection', () => new MongoNetworkError('connection 4 to db-0:27017 closed')],
    ['a write the driver labels retryable', () => new MongoServerError({ code: 6, errmsg: 'host unreachable', errorLabels: ['RetryableWriteError'] })],
  ])('%s: 503, unavailable, with the cause', async (_what, fail) => {
    const store = open(fail);
    const err = await orgs(store)
      .get('fail')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(toErrorResponse(err).status).toBe(503);
    expect((err as Error).message).toMatch(/^MongoDB did not answer in time or is failing over \(.+\); try again$/);
    expect((err as Error).cause).toBeInstanceOf(Error);
    expect(() => orgs(store).now()).toThrow(UnavailableError); // thrown, not only rejected
  });

  it('passes every other error as it is, and answers as the repo does', async () => {
    const duplicate = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' });
    await expect(orgs(open(() => duplicate)).get('fail')).rejects.toBe(duplicate);
    const plain = new Error('a bug');
    await expect(orgs(open(() => plain)).get('fail')).rejects.toBe(plain);
    const store = open(() => plain);
    expect(await orgs(store).get('o1')).toBe('got o1');
    expect((store as unknown as { dbName: string }).dbName).toBe('db');
    await expect(store.close()).resolves.toBeUndefined();
  });
});
