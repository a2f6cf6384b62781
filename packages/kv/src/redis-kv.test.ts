import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock, UnavailableError } from '@wirehook/core';
import { eventually, startRedisServer, type RedisServer } from '@wirehook/testkit';
import { Redis, ReplyError } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeKvContract } from '../test/kv-contract.ts';
import { RateLimiter } from './rate-limiter.ts';
import { KvUnavailableError, RedisKv } from './redis-kv.ts';

// No skip when redis-server is missing: startRedisServer() throws, and every test fails.
let server: RedisServer;
const opened: Array<{ close(): Promise<unknown> }> = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await server?.stop(); // undefined when it failed to start
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => undefined)));
});

function open(options: { keyPrefix?: string; commandTimeoutMs?: number; url?: string } = {}): RedisKv {
  const kv = new RedisKv({ url: server.url, ...options });
  opened.push(kv);
  return kv;
}

function rawClient(url = server.url): Redis {
  const client = new Redis(url);
  client.on('error', () => undefined); // the fault tests stop its server too
  opened.push({ close: () => client.quit() });
  return client;
}

/** Runs `call`, expects it to reject with KvUnavailableError, and returns how long it took. */
async function unavailableAfterMs(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const error = await call().then(
    () => new Error('resolved, expected a KvUnavailableError'),
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(KvUnavailableError);
  return performance.now() - started;
}

// Real time: the expiry cases sleep, with a TTL long enough for margins of 100 ms.
describeKvContract('RedisKv', async () => ({ kv: new RedisKv({ url: server.url }), advance: (ms) => sleep(ms) }), { ttlMs: 500 });

describe('RedisKv on one server', () => {
  let ns: string;
  beforeEach(() => {
    ns = `redis-kv-test:${randomUUID()}:`;
  });

  it('sends the calls of one turn of the event loop to Redis in one write (auto-pipelining), each answered', async () => {
    const kv = open();
    const raw = rawClient();
    await kv.set(`${ns}k`, 'v', 60_000); // connected, scripts aside
    const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await raw.info('stats'))?.[1]);
    const before = await reads();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? kv.get(`${ns}k`) : kv.incr(`${ns}n`, 60_000))));
    const after = await reads();
    expect(answers.filter((a) => a === 'v')).toHaveLength(50);
    expect(answers.filter((a) => typeof a === 'number').sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // 100 calls (≈ 11 KB, under Redis's 16 KB read buffer), one read of them (two: a socket may split a
    // write); the INFO reads are the other two. Without auto-pipelining: ≈ 90 reads.
    expect(after - before).toBeLessThanOrEqual(4);
  });

  it('shares counters and values between two clients', async () => {
    const a = open();
    const b = open();
    expect(await a.incr(`${ns}n`, 60_000)).toBe(1);
    expect(await b.incr(`${ns}n`, 60_000)).toBe(2);
    expect(await a.incr(`${ns}n`, 60_000)).toBe(3);
    expect(await b.get(`${ns}n`)).toBe('3');
    await a.setIfAbsent(`${ns}k`, 'from-a', 60_000);
    expect(await b.setIfAbsent(`${ns}k`, 'from-b', 60_000)).toBe('from-a');
    await b.delete(`${ns}k`);
    expect(await a.get(`${ns}k`)).toBeNull();
  });

  it('lets exactly one of 50 concurrent writers on two clients win', async () => {
    const clients = [open(), open()];
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => clients[i % 2]!.setIfAbsent(`${ns}k`, `writer-${i}`, 60_000)));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    const winner = `writer-${results.indexOf(null)}`;
    expect(results.filter((r) => r !== null).every((r) => r === winner)).toBe(true);
    expect(await clients[1]!.get(`${ns}k`)).toBe(winner);
  });

  it('counts 50 concurrent increments on two clients as 1 to 50', async () => {
    const clients = [open(), open()];
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => clients[i % 2]!.incr(`${ns}n`, 60_000)));
    expect([...values].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('namespaces every key under keyPrefix', async () => {
    const a = open({ keyPrefix: `${ns}tenant-a:` });
    const b = open({ keyPrefix: `${ns}tenant-b:` });
    await a.incr('n', 60_000);
    await a.incr('n', 60_000);
    expect(await b.incr('n', 60_000)).toBe(1);
    await a.setIfAbsent('k', 'v', 60_000);
    expect(await b.get('k')).toBeNull();
    expect(await rawClient().get(`${ns}tenant-a:n`)).toBe('2');
    expect(await open().get(`${ns}tenant-a:k`)).toBe('v');
  });

  it('sets the expiry when incr creates a key and leaves it alone afterwards', async () => {
    const kv = open();
    const raw = rawClient();
    await kv.incr(`${ns}n`, 60_000);
    const created = await raw.pttl(`${ns}n`);
    expect(created).toBeGreaterThan(55_000);
    expect(created).toBeLessThanOrEqual(60_000);
    await raw.pexpire(`${ns}n`, 5_000);
    await kv.incr(`${ns}n`, 60_000);
    expect(await raw.pttl(`${ns}n`)).toBeLessThanOrEqual(5_000);
  });

  it('setIfAbsent gives the stored key its TTL and a losing writer leaves it alone', async () => {
    const kv = open();
    const raw = rawClient();
    expect(await kv.setIfAbsent(`${ns}k`, 'v', 60_000)).toBeNull();
    expect(await raw.pttl(`${ns}k`)).toBeGreaterThan(55_000);
    await raw.pexpire(`${ns}k`, 5_000);
    expect(await kv.setIfAbsent(`${ns}k`, 'w', 60_000)).toBe('v');
    expect(await raw.pttl(`${ns}k`)).toBeLessThanOrEqual(5_000);
  });

  it('set gives the key the new TTL, replacing the old one', async () => {
    const kv = open();
    const raw = rawClient();
    await kv.setIfAbsent(`${ns}k`, 'v', 5_000);
    await kv.set(`${ns}k`, 'w', 60_000);
    expect(await raw.pttl(`${ns}k`)).toBeGreaterThan(55_000);
    await kv.set(`${ns}k`, 'x', 5_000);
    expect(await raw.pttl(`${ns}k`)).toBeLessThanOrEqual(5_000);
    expect(await raw.get(`${ns}k`)).toBe('x');
  });

  it('deleteIfEquals under keyPrefix compares and removes the prefixed key', async () => {
    const kv = open({ keyPrefix: `${ns}p:` });
    const raw = rawClient();
    await kv.set('k', 'mine', 60_000);
    expect(await raw.get(`${ns}p:k`)).toBe('mine');
    expect(await kv.deleteIfEquals('k', 'other')).toBe(false);
    expect(await kv.deleteIfEquals('k', 'mine')).toBe(true);
    expect(await raw.exists(`${ns}p:k`)).toBe(0);
  });

  it('compareAndSet under keyPrefix: the prefixed key, its new TTL; a loser leaves the TTL alone', async () => {
    const kv = open({ keyPrefix: `${ns}p:` });
    const raw = rawClient();
    expect(await kv.compareAndSet('k', null, 'a', 5_000)).toBe(true);
    expect(await kv.compareAndSet('k', 'a', 'b', 60_000)).toBe(true);
    expect(await raw.get(`${ns}p:k`)).toBe('b');
    expect(await raw.pttl(`${ns}p:k`)).toBeGreaterThan(55_000);
    await raw.pexpire(`${ns}p:k`, 5_000);
    expect(await kv.compareAndSet('k', 'a', 'c', 60_000)).toBe(false);
    expect(await raw.pttl(`${ns}p:k`)).toBeLessThanOrEqual(5_000);
    expect(await kv.compareAndSet('k', 'b', null, 60_000)).toBe(true);
    expect(await raw.exists(`${ns}p:k`)).toBe(0);
  });

  it('refuses to count past 2^53 - 1 and leaves the value as it was', async () => {
    const kv = open();
    await kv.setIfAbsent(`${ns}big`, String(Number.MAX_SAFE_INTEGER - 1), 60_000);
    expect(await kv.incr(`${ns}big`, 60_000)).toBe(Number.MAX_SAFE_INTEGER);
    await expect(kv.incr(`${ns}big`, 60_000)).rejects.toThrow('not an integer or out of range');
    expect(await kv.get(`${ns}big`)).toBe(String(Number.MAX_SAFE_INTEGER));
  });

  it('rejects an error reply as a ReplyError, not as unavailable', async () => {
    const kv = open();
    await kv.setIfAbsent(`${ns}s`, 'abc', 60_000);
    const error = await kv.incr(`${ns}s`, 60_000).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ReplyError);
    expect(error).not.toBeInstanceOf(UnavailableError);
  });

  it('rejects a bad commandTimeoutMs or url at construction', () => {
    expect(() => new RedisKv({ url: server.url, commandTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => new RedisKv({ url: 'not a url' })).toThrow(RangeError);
  });

  it("a signal from one client's logRemove reaches another client's listener, under the same keyPrefix only", async () => {
    const sender = open({ keyPrefix: 'install-a:' });
    const heard: string[] = [];
    await open({ keyPrefix: 'install-a:' }).listen(`${ns}freed`, () => heard.push('a'));
    await open({ keyPrefix: 'install-b:' }).listen(`${ns}freed`, () => heard.push('b'));
    await sender.logAdmit(`${ns}log`, 'm', 1, 60_000, 1_000);
    await sender.logRemove(`${ns}log`, 'm', `${ns}freed`);
    await eventually(() => expect(heard).toEqual(['a']));
    // Install b, on the same Redis, heard nothing: a second signal reaches a, still not b.
    await sender.logRemove(`${ns}log`, 'm', `${ns}freed`);
    await eventually(() => expect(heard).toEqual(['a', 'a']));
  });

  it('counts one rate limit across two limiters on two clients (the 429 boundary)', async () => {
    const clock = new ManualClock();
    const limiters = [new RateLimiter({ kv: open(), clock }), new RateLimiter({ kv: open(), clock })];
    const bucket = `${ns}env_a`;
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiters[i % 2]!.hit(bucket, 3));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    clock.advance(60_000); // the next minute is a new window for both
    expect(await limiters[1]!.hit(bucket, 3)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('RedisKv when Redis goes away', () => {
  // Its own server, so stopping it disturbs no other test.
  let flaky: RedisServer;

  beforeAll(async () => {
    flaky = await startRedisServer();
  });

  afterAll(async () => {
    await flaky?.stop();
  });

  afterEach(async () => {
    await flaky.restart(); // a fresh, running server for the next test
  });

  it('rejects every call within 1 s with KvUnavailableError while Redis is stopped', async () => {
    const kv = open({ url: flaky.url });
    expect(await kv.incr('n', 60_000)).toBe(1);
    await flaky.stop();
    const calls = [
      () => kv.get('n'),
      () => kv.incr('n', 60_000),
      () => kv.setIfAbsent('k', 'v', 60_000),
      () => kv.set('k', 'v', 60_000),
      () => kv.delete('n'),
      () => kv.deleteIfEquals('k', 'v'),
    ];
    for (const call of calls) {
      expect(await unavailableAfterMs(call)).toBeLessThan(1_000);
    }
    expect(await unavailableAfterMs(() => kv.listen('freed', () => undefined))).toBeLessThan(1_000);
  });

  it('a listener stopped while Redis is down is unsubscribed once Redis is back; one still listening is subscribed again', async () => {
    const kv = open({ url: flaky.url });
    await kv.listen('kept', () => undefined);
    const stop = await kv.listen('stopped', () => undefined);
    await flaky.kill();
    stop();
    await flaky.restart();
    const raw = rawClient(flaky.url);
    await eventually(async () => expect(await raw.pubsub('NUMSUB', 'kept', 'stopped')).toEqual(['kept', 1, 'stopped', 0]), 10_000);
  });

  it('a listener hears signals again after Redis is killed and restarted (subscribed anew)', async () => {
    const kv = open({ url: flaky.url });
    let heard = 0;
    await kv.listen('freed', () => heard++);
    await kv.logRemove('log', 'm', 'freed');
    await eventually(() => expect(heard).toBe(1));
    await flaky.kill();
    await flaky.restart();
    // Signals sent before the listener's connection is back are lost (at most once): send until one arrives.
    await eventually(async () => {
      await kv.logRemove('log', 'm', 'freed').catch(() => undefined);
      expect(heard).toBeGreaterThan(1);
    }, 10_000);
  });

  it('works again after Redis is killed and restarted, with the same client', async () => {
    const kv = open({ url: flaky.url });
    expect(await kv.setIfAbsent('k', 'before', 60_000)).toBeNull();
    await flaky.kill();
    expect(await unavailableAfterMs(() => kv.get('k'))).toBeLessThan(1_000);
    await flaky.restart();
    // The restarted server is empty (no persistence), so the key can be set afresh.
    await eventually(async () => expect(await kv.get('k')).toBeNull(), 5_000);
    expect(await kv.setIfAbsent('k', 'after', 60_000)).toBeNull();
    expect(await kv.get('k')).toBe('after');
    expect(await kv.incr('n', 60_000)).toBe(1);
  });

  it('times out a command Redis does not answer, then carries on', async () => {
    const kv = open({ url: flaky.url, commandTimeoutMs: 200 });
    await kv.setIfAbsent('k', 'v', 60_000);
    // Redis holds every client's commands (this one's answer included) for 1.5 s.
    await rawClient(flaky.url).client('PAUSE', 1_500, 'ALL');
    const elapsed = await unavailableAfterMs(() => kv.get('k'));
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(700);
    await eventually(async () => expect(await kv.get('k')).toBe('v'), 5_000);
  });

  it('times out a call made behind a pipeline Redis does not answer within the timeout of its own, not after the pipeline’s', async () => {
    const kv = open({ url: flaky.url, commandTimeoutMs: 1_000 });
    await kv.setIfAbsent('k', 'v', 60_000);
    await rawClient(flaky.url).client('PAUSE', 5_000, 'ALL');
    const first = unavailableAfterMs(() => kv.get('k'));
    await sleep(100); // the first call's pipeline is written and waits for Redis
    // Queued behind it, this one used to wait for it to time out (1 s) and then for its own (1 s more).
    const second = await unavailableAfterMs(() => kv.get('k'));
    expect(second).toBeGreaterThanOrEqual(900);
    expect(second).toBeLessThan(1_700);
    expect(await first).toBeGreaterThanOrEqual(900);
  });

  it('starts while Redis is down, rejects at once, and connects when Redis comes up', async () => {
    await flaky.stop();
    const kv = open({ url: flaky.url });
    expect(await unavailableAfterMs(() => kv.incr('n', 60_000))).toBeLessThan(1_000);
    await flaky.restart();
    await eventually(async () => expect(await kv.get('n')).toBeNull(), 5_000);
    expect(await kv.incr('n', 60_000)).toBe(1);
  });

  it('closed while Redis is down, lets its process end at once (ioredis’s 2 s wait for a socket already gone held it)', async () => {
    const probe = join(import.meta.dirname, '..', 'test', 'close-while-down-process.ts');
    const child = spawn(process.execPath, [probe], { env: { ...process.env, REDIS_URL: flaky.url }, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    await eventually(() => expect(said).toContain('connected'), 10_000);
    await flaky.kill();
    const [code] = (await exited) as [number | null];
    expect(said).toContain('closed');
    expect(said).not.toContain('still held open');
    expect(code).toBe(0);
  });

  it('closes without hanging while Redis is down', async () => {
    const kv = open({ url: flaky.url });
    expect(await kv.incr('n', 60_000)).toBe(1);
    await flaky.kill();
    const started = performance.now();
    await kv.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(kv.get('n')).rejects.toThrow('kv: closed');
  });
});

/**
 * A TCP proxy to Redis that, once told (`cutAndHoldReadyChecks`), keeps back what Redis answers on
 * each new connection from its `INFO` (ioredis's ready check) on, until `release()`: the test
 * closes the client first, so the answer arrives at a connection no longer writable.
 * `held.waiting` counts the connections with an answer held; `sent`, the bytes written to each
 * client, by the client's own port. Told `cutAndSwallowNextSubscribe`, it passes on nothing more
 * from the first new connection to send a SUBSCRIBE (a half-open socket, as an idle timeout leaves).
 */
async function startHoldingProxy(redisUrl: string) {
  const upstreamPort = Number(new URL(redisUrl).port);
  const clients = new Set<Socket>();
  const held = { on: false, waiting: 0, swallowNext: false, swallowed: 0 };
  const sent = new Map<number, number>();
  const releases: Array<() => void> = [];
  const proxy = createServer({ allowHalfOpen: true }, (client) => {
    clients.add(client);
    const port = client.remotePort!;
    const upstream = connect(upstreamPort, '127.0.0.1');
    const kept: Buffer[] = [];
    let holding = false;
    const toClient = (chunk: Buffer) => {
      sent.set(port, (sent.get(port) ?? 0) + chunk.length);
      client.write(chunk);
    };
    let swallowing = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (held.on && /\r\ninfo\r\n/i.test(text)) holding = true;
      if (held.swallowNext && /\r\nsubscribe\r\n/i.test(text)) {
        held.swallowNext = false;
        held.swallowed++;
        swallowing = true;
      }
      if (!swallowing) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!holding) return toClient(chunk);
      if (kept.push(chunk) === 1) held.waiting++;
    });
    releases.push(() => {
      holding = false;
      if (kept.length > 0) toClient(Buffer.concat(kept.splice(0)));
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    for (const socket of [client, upstream]) socket.on('error', () => undefined);
    client.on('close', () => {
      clients.delete(client);
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    held,
    sent,
    /** Cuts every connection (the clients reconnect) and holds the ready checks of the new ones. */
    cutAndHoldReadyChecks(): void {
      held.on = true;
      for (const client of clients) client.destroy();
    },
    /** Cuts every connection (the clients reconnect) and swallows the first SUBSCRIBE of the new ones, and all after it there. */
    cutAndSwallowNextSubscribe(): void {
      held.swallowNext = true;
      for (const client of clients) client.destroy();
    },
    /** Hands every held answer over, and what follows it. */
    release: () => {
      for (const release of releases) release();
    },
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

describe('RedisKv whose listener connection is cut', () => {
  it('subscribes again on a new connection when the SUBSCRIBE after a reconnect goes unanswered (a half-open socket)', async () => {
    const proxy = await startHoldingProxy(server.url);
    const kv = new RedisKv({ url: proxy.url, commandTimeoutMs: 300 });
    try {
      let heard = 0;
      await kv.listen('freed', () => heard++);
      proxy.cutAndSwallowNextSubscribe();
      await eventually(() => expect(proxy.held.swallowed).toBe(1), 5_000);
      // Heard only once the listener's channel is subscribed on a connection made after the unanswered one.
      await eventually(async () => {
        await kv.logRemove('log', 'm', 'freed').catch(() => undefined);
        expect(heard).toBeGreaterThan(0);
      }, 10_000);
    } finally {
      await kv.close();
      await proxy.close();
    }
  });
});

describe('RedisKv closed while it reconnects', () => {
  it('leaves no rejection unhandled when closed between its connections’ ready checks and their answers (the listener’s resubscribing)', async () => {
    const proxy = await startHoldingProxy(server.url);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    // The client sockets to the proxy, seen from this side: their 'close' comes after what they read.
    const sockets: Socket[] = [];
    const onSocket = ({ socket }: { socket: Socket }) => sockets.push(socket);
    diagnostics.subscribe('net.client.socket', onSocket as (message: unknown) => void);
    try {
      // A ready check left unanswered for 10 s before ioredis gives up on it (not 500 ms: a loaded machine).
      const kv = new RedisKv({ url: proxy.url, commandTimeoutMs: 10_000 });
      await kv.listen('freed', () => undefined);
      proxy.cutAndHoldReadyChecks();
      sockets.length = 0;
      // Both connections (commands, listener) reconnect and wait for their ready checks' answers.
      await eventually(() => expect(proxy.held.waiting).toBe(2), 5_000);
      const reconnected = sockets.filter((s) => s.remotePort === Number(new URL(proxy.url).port));
      expect(reconnected).toHaveLength(2);
      const ports = reconnected.map((s) => s.localPort!);
      const closed = Promise.all(reconnected.map((s) => new Promise((resolve) => s.once('close', resolve))));
      const closing = kv.close(); // both connections ended now, in this call's first step
      proxy.release();
      await closing;
      await closed;
      // Both answers were read after the close (not cut off unread): the listener's connection turned ready, unwritable.
      expect(reconnected.map((s) => s.bytesRead)).toEqual(ports.map((port) => proxy.sent.get(port)));
      // ioredis's own resubscribing rejected there with nobody to hear it (Node ends the process).
      expect(unhandled).toEqual([]);
    } finally {
      diagnostics.unsubscribe('net.client.socket', onSocket as (message: unknown) => void);
      process.off('unhandledRejection', onUnhandled);
      await proxy.close();
    }
  });
});
