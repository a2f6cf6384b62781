import { describe, expect, it, vi } from 'vitest';

// The MongoDB store as a stand-in that answers with the options it was opened with (no server here).
vi.mock('@wirehook/store/mongo', () => ({ openMongoStore: vi.fn(async (options: unknown) => options) }));
const { openRequestStore, openStore, REQUEST_POOL_WAIT_MS } = await import('./open-store.ts');

describe('openStore on MongoDB', () => {
  const config = { MONGODB_URL: 'mongodb://db-0:27017/wirehook?replicaSet=rs0', DATA_DIR: '/unused' };

  it('bounds the pool wait of a process that answers requests at 10 s (the gateway, the portal, message-intake)', async () => {
    expect(REQUEST_POOL_WAIT_MS).toBe(10_000);
    expect(await openRequestStore(config)).toEqual({ url: config.MONGODB_URL, poolWaitMs: 10_000 });
  });

  it('passes the stop asked during the start on (it ends a layout upgrade, and the wait for a server)', async () => {
    const { signal } = new AbortController();
    expect(await openStore(config, { signal })).toEqual({ url: config.MONGODB_URL, signal });
    expect(await openRequestStore(config, signal)).toEqual({ url: config.MONGODB_URL, poolWaitMs: 10_000, signal });
  });

  it("leaves a dispatcher's (and every other process's) to the driver: no limit unless the URL sets one", async () => {
    expect(await openStore(config)).toEqual({ url: config.MONGODB_URL });
  });
});
