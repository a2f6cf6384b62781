import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { describeStoreContract } from '../../test/contract/store-contract.ts';
import type { Store } from '../store.ts';
import { openMongoStore } from './open-mongo-store.ts';

// The contract runs only where a MongoDB replica set is reachable (MONGODB_URL, as in
// .github/workflows/ci.yml); without one it is reported as skipped, never as passed.
const url = process.env['MONGODB_URL'];

describe.skipIf(url === undefined || url === '')('MongoDB store (MONGODB_URL)', () => {
  // Each run gets a database of its own, dropped after.
  const dbName = `wirehook_contract_${randomUUID().replaceAll('-', '')}`;
  describeStoreContract(
    'mongodb',
    async () => openMongoStore({ url: url as string, dbName }),
    async (store: Store) => {
      await store.close();
      const client = new MongoClient(url as string);
      try {
        await client.db(dbName).dropDatabase();
      } finally {
        await client.close();
      }
    },
  );
});

describe('openMongoStore', () => {
  it('rejects quickly with a clear error when the server cannot be reached', async () => {
    const started = performance.now();
    const opening = openMongoStore({ url: 'mongodb://wirehook:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=500' });
    const err: unknown = await opening.then(
      () => expect.fail('openMongoStore resolved for an unreachable server'),
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(Error);
    // Names the server, leaves the password out.
    expect((err as Error).message).toMatch(/^cannot connect to MongoDB at mongodb:\/\/…@127\.0\.0\.1:1\//);
    expect((err as Error).message).not.toContain('s3cret');
  });
});
