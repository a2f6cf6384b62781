// Two dispatchers' EndpointThrottles over one real Redis: a change of an endpoint's adaptive
// limit computed from a read the other dispatcher has written over since is not stored.
import { randomUUID } from 'node:crypto';
import { ManualClock, type Endpoint } from '@wirehook/core';
import { EndpointThroughput, RedisKv, type ConcurrencyState, type Kv } from '@wirehook/kv';
import { createLogger, silentLogger } from '@wirehook/platform';
import type { DeliveryJob } from '@wirehook/store';
import { jsonLines, startRedisServer, type RedisServer } from '@wirehook/testkit';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EndpointThrottle } from './endpoint-throttle.ts';
import type { SendResult } from './outcome.ts';
import { createThroughputMetrics } from './throughput-metrics.ts';

/** A's Kv: stops A right after its next `get` of an adaptive limit (the stale read of a race), or refuses every compare-and-set. */
class RacingKv implements Kv {
  readonly kv: Kv;
  refuseEveryCas = false;
  casCalls = 0;
  #pause: { reached: () => void; resume: Promise<void> } | undefined;
  constructor(kv: Kv) {
    this.kv = kv;
  }
  /** @returns when the paused read has its answer, and how to let it go on. */
  pauseNextRead(): { reached: Promise<void>; resume: () => void } {
    const reached = Promise.withResolvers<void>();
    const resume = Promise.withResolvers<void>();
    this.#pause = { reached: reached.resolve, resume: resume.promise };
    return { reached: reached.promise, resume: resume.resolve };
  }
  get = async (key: string) => {
    const value = await this.kv.get(key);
    const pause = key.startsWith('tp:conc:') ? this.#pause : undefined;
    if (pause !== undefined) {
      this.#pause = undefined;
      pause.reached();
      await pause.resume;
    }
    return value;
  };
  compareAndSet = async (key: string, expected: string | null, next: string | null, ttlMs: number) => {
    this.casCalls++;
    return !this.refuseEveryCas && (await this.kv.compareAndSet(key, expected, next, ttlMs));
  };
  incr = (key: string, ttlMs: number) => this.kv.incr(key, ttlMs);
  setIfAbsent = (key: string, value: string, ttlMs: number) => this.kv.setIfAbsent(key, value, ttlMs);
  set = (key: string, value: string, ttlMs: number) => this.kv.set(key, value, ttlMs);
  delete = (key: string) => this.kv.delete(key);
  deleteIfEquals = (key: string, value: string) => this.kv.deleteIfEquals(key, value);
  logAdmit = (key: string, member: string, limit: number, windowMs: number, now: number) => this.kv.logAdmit(key, member, limit, windowMs, now);
  logAdmitLimitedBy = (key: string, member: string, limitKey: string, defaultLimit: number, windowMs: number, now: number) =>
    this.kv.logAdmitLimitedBy(key, member, limitKey, defaultLimit, windowMs, now);
  logRemove = (key: string, member: string, signal?: string) => this.kv.logRemove(key, member, signal);
  listen = (channel: string, onSignal: () => void) => this.kv.listen(channel, onSignal);
  logCount = (key: string, windowMs: number, now: number) => this.kv.logCount(key, windowMs, now);
  close = () => this.kv.close();
}

const SLOTS = 8;
const endpoint = { id: 'ep_race', heldUntil: null, rateLimit: null } as unknown as Endpoint;
const job = (n: number) => ({ endpoint, delivery: { id: `dlv_${n}` }, leaseToken: 1 }) as unknown as DeliveryJob;
const answer = (status: number): SendResult => ({ ok: status < 300, status, responseHead: '', error: null, durationMs: 5, sourceIp: null });

let server: RedisServer;
let clock: ManualClock;
let redis: RedisKv;
let racing: RacingKv;
let a: EndpointThrottle;
let b: EndpointThrottle;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  clock = new ManualClock();
  const keyPrefix = `endpoint-throttle-test:${randomUUID()}:`;
  redis = new RedisKv({ url: server.url, keyPrefix });
  racing = new RacingKv(new RedisKv({ url: server.url, keyPrefix }));
  const throttle = (kv: Kv) => new EndpointThrottle({ kv, clock, logger: silentLogger(), metrics: createThroughputMetrics(new Registry()), slots: SLOTS });
  a = throttle(racing);
  b = throttle(redis);
});
afterEach(async () => {
  a.stop();
  b.stop();
  await Promise.all([redis.close(), racing.close()]);
});

/** Limit 2 since a cut a second ago, well below its ceiling: one success at the limit grows it. */
async function cutToTwo(): Promise<ConcurrencyState> {
  const state = { limit: 2, ceiling: SLOTS, successes: 0, cutAt: clock.now() - 1_000 };
  expect(await new EndpointThroughput(redis).replaceConcurrency(endpoint.id, null, state)).toBe(true);
  return state;
}

/** One send in flight on B, then one on A, which fills the limit of 2: A's success may grow it. */
async function sendOnBothAtLimit() {
  const onB = await b.admit(job(1), clock.now());
  const onA = await a.admit(job(2), clock.now());
  if (!onA.ok || !onB.ok) throw new Error('both sends should be let in');
  expect(await onA.atLimit).toBe(true);
  return { onA, onB };
}

const shared = () => new EndpointThroughput(redis).concurrency(endpoint.id);

describe('EndpointThrottle: the adaptive limit shared by dispatchers', () => {
  it("a cut written between A's read and A's growth survives: A's growth is dropped", async () => {
    await cutToTwo();
    const { onA, onB } = await sendOnBothAtLimit();
    clock.advance(10);
    const paused = racing.pauseNextRead();
    const aEnded = a.ended(onA, endpoint, answer(200)); // reads limit 2, computes 3, stops before writing
    await paused.reached;
    await b.ended(onB, endpoint, answer(429)); // B cuts 2 to 1 meanwhile
    const cut = await shared();
    expect(cut).toEqual({ limit: 1, ceiling: 2, successes: 0, cutAt: clock.now() });
    paused.resume();
    await aEnded;
    // A's compare-and-set found the cut, not the 2 it read; applied again to the cut, growth stops.
    expect(await shared()).toEqual(cut);
    expect(racing.casCalls).toBe(1);
    expect(a.capOf(endpoint.id)).toBe(2); // A keeps the cut it found: 2 × limit 1
  });

  it('with no one in between, a success at the limit grows it', async () => {
    const before = await cutToTwo();
    const { onA } = await sendOnBothAtLimit();
    await a.ended(onA, endpoint, answer(200));
    expect(await shared()).toEqual({ ...before, limit: 3 });
    expect(a.capOf(endpoint.id)).toBe(6);
  });

  it('a change that loses every compare-and-set is dropped after a few tries, the limit as another wrote it', async () => {
    const before = await cutToTwo();
    const { onA } = await sendOnBothAtLimit();
    racing.refuseEveryCas = true;
    await a.ended(onA, endpoint, answer(429));
    expect(racing.casCalls).toBe(3);
    expect(await shared()).toEqual(before);
  });
});

/** `kv` with each call it passes on recorded as `method key`. */
function recorded(kv: Kv): { kv: Kv; calls: string[] } {
  const calls: string[] = [];
  const wrapper = new Proxy(kv, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(name)} ${String(args[0])}`);
        return value.apply(target, args);
      };
    },
  });
  return { kv: wrapper, calls };
}

describe('EndpointThrottle: one Kv round trip to take a place in flight', () => {
  it('reads the adaptive limit and takes the place in one logAdmitLimitedBy, no get, and that limit still caps the flight', async () => {
    const state = await cutToTwo();
    await new EndpointThroughput(redis).replaceConcurrency(endpoint.id, state, { ...state, limit: 1 });
    const { kv, calls } = recorded(redis);
    const c = new EndpointThrottle({ kv, clock, logger: silentLogger(), metrics: createThroughputMetrics(new Registry()), slots: SLOTS });
    try {
      const first = await c.admit(job(1), clock.now());
      if (!first.ok) throw new Error('the first send should be let in');
      expect(first.cutSeen).toBe(state.cutAt); // the limit read in the same call
      expect(await first.atLimit).toBe(true);
      expect(calls).toEqual([`logAdmitLimitedBy tp:flight:${endpoint.id}`, `logCount tp:flight:${endpoint.id}`]);
      expect(c.capOf(endpoint.id)).toBe(2);

      // Limit 1, taken: the second waits for a place (it listens for one), and enters once the first ends.
      let settled = false;
      const second = c.admit(job(2), clock.now()).finally(() => (settled = true));
      await vi.waitFor(() => expect(calls).toContain(`listen tp:freed:${endpoint.id}`));
      expect(settled).toBe(false);
      expect(await new EndpointThroughput(redis).inFlight(endpoint.id, clock.now())).toBe(1);
      await c.ended(first, endpoint, null);
      expect(await second).toMatchObject({ ok: true, cutSeen: state.cutAt });
      expect(calls.filter((call) => call.startsWith('get '))).toEqual([]);
    } finally {
      c.stop();
    }
  });

  it.each(['not json', 'null', '7', '{"limit":0,"ceiling":4,"successes":0,"cutAt":1}', '{"limit":"2"}'])(
    'when the stored limit is %s: one place, in the shared Kv alone, given back; none in force; a 429 cuts it to a real one',
    async (stored) => {
      await redis.set(`tp:conc:${endpoint.id}`, stored, 60_000);
      const { destination, lines } = jsonLines();
      const logger = createLogger({ name: 'dispatcher', level: 'info', destination });
      const c = new EndpointThrottle({ kv: redis, clock, logger, metrics: createThroughputMetrics(new Registry()), slots: SLOTS });
      try {
        const admitted = await c.admit(job(1), clock.now());
        if (!admitted.ok) throw new Error('the send should be let in');
        expect(admitted.cutSeen).toBe(0); // no limit in force
        expect(await new EndpointThroughput(redis).inFlight(endpoint.id, clock.now())).toBe(1);
        expect(c.capOf(endpoint.id)).toBe(SLOTS);
        await c.ended(admitted, endpoint, answer(429));
        expect(await new EndpointThroughput(redis).inFlight(endpoint.id, clock.now())).toBe(0);
        // The congestion replaced the value with a limit below the slots.
        expect((await shared())?.limit).toBeLessThan(SLOTS);
        // Not taken for a Kv outage: nothing fell back to the process's own Kv.
        expect(lines.filter((line) => Number(line['level']) >= 40)).toEqual([]);
      } finally {
        c.stop();
        await redis.delete(`tp:conc:${endpoint.id}`);
      }
    },
  );
});

describe('a clock stepping back', () => {
  const limited = { id: 'ep_rate', heldUntil: null, rateLimit: 2 } as unknown as Endpoint;
  const rated = (n: number) => ({ endpoint: limited, delivery: { id: `dlv_r${n}` }, leaseToken: 1 }) as unknown as DeliveryJob;

  it('an hour back, a delivery the rate limit refuses comes back within the window and the spacing, not after the hour', async () => {
    const T = clock.now();
    // Its rate, 2 a second, used at T; a third put off (the spacing's first place, T + 1 s).
    for (const n of [1, 2]) {
      const admitted = await b.admit(rated(n), T);
      if (!admitted.ok) throw new Error('within the rate: let in');
      await b.ended(admitted, limited, answer(200));
    }
    expect(await b.admit(rated(3), T)).toEqual({ ok: false, until: T + 1_000, reason: 'rate' });
    clock.set(T - 3_600_000);
    // The two sends at T count as made now (one window, 1 s), and the spacing moves back with the clock: its next place, 1.5 s.
    expect(await b.admit(rated(4), clock.now())).toEqual({ ok: false, until: clock.now() + 1_500, reason: 'rate' });
    // Once that window has passed, sent.
    clock.advance(1_000);
    expect((await b.admit(rated(5), clock.now())).ok).toBe(true);
  });
});
