// The idempotency front against a real redis-server. Its neighbour, message-intake, is a fake
// that counts calls and answers as the store does (the first message of a key for 24 hours);
// both, and the front's wiring, are in idempotency-front-fixture.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { newId, PlanLimitError } from '@wirehook/core';
import { eventually, jsonLines, startRedisServer, type RedisServer } from '@wirehook/testkit';
import { frontKey } from './idempotency-front.ts';
import { idempotencyFrontFixture, newTenant } from './testing/idempotency-front-fixture.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const setup = idempotencyFrontFixture();

describe('IdempotencyFront', () => {
  it('sends a 50-way burst of one key to intake once; all 50 get the first answer', async () => {
    const s = setup();
    s.intake.delayMs = 50;
    const results = await Promise.all(Array.from({ length: 50 }, () => s.send('order-7')));
    expect(s.intake.calls).toBe(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.every((r) => r.deliveries === 2 && r.usageMonth === 1)).toBe(true);
    expect(await s.metric('wirehook_idempotency_waits_total', { outcome: 'answered' })).toBe(49);
    // The 49 answered with the first's message say so (idempotent-replayed); the first does not.
    expect(results.filter((r) => r.replayed === true)).toHaveLength(49);
  });

  it('answers a replay from Redis without calling intake, with the first answer whatever the body', async () => {
    const s = setup();
    const first = await s.send('pay-1');
    await s.send(null); // another message this month: the store would now report 2
    const again = await s.send('pay-1');
    expect(again).toEqual({ ...first, replayed: true }); // usageMonth is the first answer's figure (docs/semantics.md)
    expect(first.replayed).toBeUndefined();
    expect(s.intake.calls).toBe(2);
    expect(await s.metric('wirehook_idempotency_replays_total')).toBe(1);
  });

  it('replays from Redis until 1 minute before the 24-hour window ends, then lets the store decide', async () => {
    const s = setup();
    const first = await s.send('pay-2');
    s.clock.advance(DAY - MINUTE);
    expect(await s.send('pay-2')).toEqual({ ...first, replayed: true });
    expect(s.intake.calls).toBe(1);
    s.clock.advance(1);
    expect((await s.send('pay-2')).id).toBe(first.id); // the store, still within its window
    expect(s.intake.calls).toBe(2);
    s.clock.advance(MINUTE);
    expect((await s.send('pay-2')).id).not.toBe(first.id); // past 24 h: a new message
    expect(s.intake.calls).toBe(3);
  });

  it('remembers an answer for answerTtlMs at most (Redis keeps it no longer), then the store decides again', async () => {
    const s = setup({ answerTtlMs: 10 * MINUTE });
    const first = await s.send('short');
    expect(s.kv.lastSetTtlMs).toBe(10 * MINUTE);
    s.clock.advance(10 * MINUTE);
    expect(await s.send('short')).toEqual({ ...first, replayed: true });
    expect(s.intake.calls).toBe(1);
    s.clock.advance(1);
    expect((await s.send('short')).id).toBe(first.id); // the store, whose window is 24 h
    expect(s.intake.calls).toBe(2);
  });

  it("keeps a store-answered replay only for what is left of its window (from the id's time)", async () => {
    const s = setup();
    const first = await s.send('old');
    await s.kv.delete(frontKey(s.tenant, 'old')); // Redis lost it (a restart); the store still has it
    s.clock.advance(DAY - MINUTE - 400); // 400 ms of the front's window left
    expect((await s.send('old')).id).toBe(first.id);
    expect(await s.send('old')).toMatchObject({ id: first.id });
    expect(s.intake.calls).toBe(2);
    await sleep(600); // Redis' clock: the kept answer has expired
    expect((await s.send('old')).id).toBe(first.id);
    expect(s.intake.calls).toBe(3);
  });

  it('does not carry a remembered x-usage-month into the next UTC month', async () => {
    const s = setup({ startAt: Date.UTC(2026, 0, 31, 23, 59, 59, 700) });
    await s.send('eom');
    expect(s.intake.calls).toBe(1);
    s.clock.advance(299); // 23:59:59.999
    await s.send('eom');
    expect(s.intake.calls).toBe(1);
    s.clock.advance(1); // 1 February 00:00:00.000
    await s.send('eom');
    expect(s.intake.calls).toBe(2);
    // In real time too: the answer kept at 23:59:59.700 lived 300 ms.
    const late = setup({ startAt: Date.UTC(2026, 0, 31, 23, 59, 59, 700) });
    await late.send('eom');
    await sleep(450);
    await late.send('eom');
    expect(late.intake.calls).toBe(2);
  });

  it('lets waiters through to intake at once when the first send fails; intake decides each', async () => {
    const s = setup({ maxWaitMs: 10_000 });
    s.intake.delays.set(1, 100);
    s.intake.failing.add(1);
    // The waiters' own sends are slow: each has polled and found the key free before any
    // of them could leave an answer there.
    s.intake.delayMs = 300;
    const started = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => s.send('k')));
    expect(performance.now() - started).toBeLessThan(2_000); // not the 10 s wait
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(PlanLimitError);
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
    expect(ids).toHaveLength(9);
    expect(new Set(ids).size).toBe(1);
    expect(s.intake.calls).toBe(10);
    expect(await s.metric('wirehook_idempotency_waits_total', { outcome: 'released' })).toBe(9);
    // What the waiters got from intake is the key's answer from now on.
    expect((await s.send('k')).id).toBe(ids[0]);
    expect(s.intake.calls).toBe(10);
  });

  it('a failed first send removes only its own marker: a failure with no waiters leaves the key free', async () => {
    const s = setup();
    s.intake.failing.add(1);
    await expect(s.send('once')).rejects.toThrow(PlanLimitError);
    expect(await s.kv.get(frontKey(s.tenant, 'once'))).toBeNull();
    await s.send('once');
    expect(s.intake.calls).toBe(2);
  });

  it('sends a waiter to intake itself when the first send outlasts maxWaitMs', async () => {
    const s = setup({ maxWaitMs: 200 });
    s.intake.delays.set(1, 800);
    const first = s.send('slow');
    await sleep(20);
    const started = performance.now();
    const second = await s.send('slow');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(700);
    expect(second.id).toBe((await first).id);
    expect(s.intake.calls).toBe(2);
    expect(await s.metric('wirehook_idempotency_waits_total', { outcome: 'timed_out' })).toBe(1);
  });

  it('keeps the keys of two orgs and two environments apart', async () => {
    const s = setup();
    const test = { ...s.tenant, env: 'test' as const };
    const other = newTenant(s.clock);
    const ids = [await s.send('same'), await s.send('same', test), await s.send('same', other)].map((r) => r.id);
    expect(new Set(ids).size).toBe(3);
    expect(s.intake.calls).toBe(3);
    const replays = [await s.send('same'), await s.send('same', test), await s.send('same', other)].map((r) => r.id);
    expect(replays).toEqual(ids);
    expect(s.intake.calls).toBe(3);
  });

  it('hashes any key of 1 to 256 characters into one short Redis key', async () => {
    const s = setup();
    for (const key of ['k', 'k'.repeat(256), 'ü ✓ "x" \n\t{}:*', ' ']) {
      const first = await s.send(key);
      expect(await s.send(key)).toEqual({ ...first, replayed: true });
      expect(frontKey(s.tenant, key)).toMatch(/^idem:org_[0-9A-Z]{26}:live:[A-Za-z0-9_-]{43}$/);
    }
    expect(s.intake.calls).toBe(4);
  });

  it('never touches Redis for a send without a key, nor for the other methods', async () => {
    const s = setup();
    await Promise.all(Array.from({ length: 5 }, () => s.send(null)));
    await s.front.retryDelivery(s.tenant, newId('delivery', s.clock));
    expect(await s.front.releaseHeld(s.tenant, newId('endpoint', s.clock))).toBe(3);
    expect(s.kv.calls).toBe(0);
    expect(s.intake.calls).toBe(5);
    expect(s.intake.passedThrough).toHaveLength(2);
  });

  it('asks intake when Redis holds something it cannot read, and replaces it', async () => {
    const s = setup();
    await s.kv.set(frontKey(s.tenant, 'odd'), '{"id":42}', 60_000);
    const first = await s.send('odd');
    expect(s.intake.calls).toBe(1);
    expect(await s.send('odd')).toEqual({ ...first, replayed: true });
    expect(s.intake.calls).toBe(1);
  });
});

describe('IdempotencyFront when Redis goes away', () => {
  let flaky: RedisServer;
  beforeAll(async () => {
    flaky = await startRedisServer();
  });
  afterAll(async () => {
    await flaky?.stop();
  });

  it('sends everything to intake while Redis is stopped, logs the outage once, and uses Redis again after', async () => {
    const { destination, lines } = jsonLines();
    const logger = pino({ level: 'info' }, destination);
    const s = setup({ url: flaky.url, logger });
    const before = await s.send('kept');
    await flaky.stop();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.send(i < 10 ? `k${i}` : 'burst')));
    expect(results).toHaveLength(20);
    expect(s.intake.calls).toBe(21);
    expect(new Set(results.slice(10).map((r) => r.id)).size).toBe(1); // the store made one message of 'burst'
    expect((await s.send('kept')).id).toBe(before.id); // intake's replay
    expect(s.intake.calls).toBe(22);
    expect(await s.metric('wirehook_idempotency_redis_errors_total')).toBe(21); // one SET NX each
    const warned = lines.filter((l) => /Redis unreachable for Idempotency-Keys/.test(String(l['msg'])));
    expect(warned).toHaveLength(1);

    await flaky.restart(); // empty: nothing of before
    await eventually(async () => {
      await s.send('after');
      expect(lines.at(-1)?.['msg']).toMatch(/no more/);
    }, 5_000);
    const calls = s.intake.calls;
    await s.send('after');
    expect(s.intake.calls).toBe(calls);
  });
});
