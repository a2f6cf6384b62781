// REDIS_URL as a Sentinel group, against real processes: a primary, its replica and a
// Sentinel (redis-server in sentinel mode). The primary is killed; Sentinel promotes the
// replica, and the same RedisKv carries on writing to it. One Redis is then no single point
// of failure.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, startRedisSentinel, startRedisServer, type RedisServer } from '@wirehook/testkit';
import { RedisKv } from './redis-kv.ts';
import { parseRedisUrl } from './redis-url.ts';

describe('parseRedisUrl', () => {
  it('reads one server, or a Sentinel group with its primary name, credentials and db', () => {
    expect(parseRedisUrl('redis://cache:6380')).toMatchObject({ kind: 'server', where: 'cache:6380' });
    expect(parseRedisUrl('redis+sentinel://:s%40cret@s1:26379,s2,[::1]:26380/orders/2')).toEqual({
      kind: 'sentinel',
      where: 'Sentinel primary orders via s1:26379,s2:26379,::1:26380',
      options: {
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        name: 'orders',
        password: 's@cret',
        sentinelPassword: 's@cret',
        db: 2,
      },
    });
    expect(parseRedisUrl('rediss+sentinel://s1/orders')).toMatchObject({ options: { tls: {}, enableTLSForSentinelMode: true } });
    for (const bad of ['redis+sentinel://s1:26379', 'http://cache:6379', 'redis+sentinel:///orders', 'nonsense']) {
      expect(() => parseRedisUrl(bad), bad).toThrow(/redis\+sentinel:\/\//);
    }
  });
});

describe('RedisKv through Sentinel', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  let sentinel: RedisServer;
  beforeAll(async () => {
    primary = await startRedisServer();
    replica = await startRedisServer({ replicaOf: primary.port });
    sentinel = await startRedisSentinel(primary.port);
  });
  afterAll(async () => {
    await Promise.all([sentinel?.stop(), replica?.stop(), primary?.stop()]);
  });

  it('writes to the primary Sentinel names, and to the promoted replica after the primary is killed', async () => {
    const kv = new RedisKv({ url: sentinel.url, commandTimeoutMs: 500 });
    try {
      await kv.set('before', 'a', 60_000);
      expect(await kv.get('before')).toBe('a');
      // Replication is asynchronous: the write is kept by a failover once the replica has it.
      const onReplica = new RedisKv({ url: replica.url });
      try {
        await eventually(async () => expect(await onReplica.get('before')).toBe('a'), 10_000, 50);
      } finally {
        await onReplica.close();
      }
      await primary.kill();
      // Sentinel sees it down after 1 s and promotes the replica; ioredis asks Sentinel again.
      await eventually(
        async () => {
          await kv.set('after', 'b', 60_000);
          expect(await kv.get('after')).toBe('b');
        },
        20_000,
        250,
      );
      expect(await kv.get('before')).toBe('a'); // what was replicated survived the failover
    } finally {
      await kv.close();
    }
  });
});

describe('RedisKv through Sentinel, no sentinel answering', () => {
  it('closed, lets its process end at once (each failed lookup’s client held it 2 s: patches/ioredis@5.11.1.patch)', async () => {
    // A port nothing listens on: every lookup of the primary is refused.
    const url = `redis+sentinel://127.0.0.1:${await freePort()}/mymaster`;
    const probe = join(import.meta.dirname, '..', 'test', 'close-sentinels-down-process.ts');
    const child = spawn(process.execPath, [probe], { env: { ...process.env, REDIS_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(said).toContain('lookups failed');
    expect(said).toContain('closed');
    expect(said).not.toContain('still held open');
    expect(code).toBe(0);
  });
});
