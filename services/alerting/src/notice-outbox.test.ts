// Sending notices: a slow or dead target holds only its own notice (never the tick, never
// another target), every send is bounded, a send that throws is a recorded failed try, and
// two replicas do not both move a notice on.
import type { AlertTargetId, OrgId, Tenant } from '@wirehook/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertingWorker } from './alerting-worker.ts';
import type { NoticeResult } from './notice-sender.ts';
import { AlertScene } from './testing/alert-scene.ts';

const SEND_TIMEOUT_MS = 300; // the test's bound (production: 10 s)
let scene: AlertScene;
const workers: AlertingWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await scene?.close();
});
function start(): AlertScene {
  scene = new AlertScene();
  return scene;
}
function worker(): AlertingWorker {
  const w = scene.worker({ sendTimeoutMs: SEND_TIMEOUT_MS });
  workers.push(w);
  return w;
}
const live = (orgId: OrgId): Tenant => ({ orgId, env: 'live' });
const never = () => new Promise<NoticeResult>(() => {});
const ok: NoticeResult = { ok: true, status: 200, error: null, durationMs: 1 };
/** Resolves to 'timed out' when `p` takes longer than `ms` (real time). */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms))]);

describe('sending', () => {
  it('a target that never answers holds neither the tick nor another target; its try ends at the bound and is retried', async () => {
    const s = start();
    const org = await s.org();
    const slow = await s.target(org);
    const fast = await s.target(org);
    s.sender.answer = (target) => (target !== 'owner' && target.id === slow ? never() : Promise.resolve(ok));
    await s.fail(live(org), await s.endpoint(live(org)));
    const w = worker();
    expect(await within(w.tick(), SEND_TIMEOUT_MS / 2)).not.toBe('timed out');
    const tries = (id: AlertTargetId) => s.store.alerts.noticeAttempts(org, id, 10);
    await expect.poll(async () => (await tries(fast)).map((a) => a.responseStatus), { timeout: SEND_TIMEOUT_MS / 2 }).toEqual([200]);
    expect(await tries(slow)).toEqual([]);
    await w.idle();
    // The fake's send ignores the cancel: waited for one more bound, then recorded (a real send is closed at the bound).
    expect((await tries(slow)).map((a) => a.error)).toEqual(['timeout: no answer within 0.3 s (the send did not stop when cancelled)']);
    s.sender.answer = async () => ok;
    s.clock.advance(10_000); // the first retry
    await w.tick();
    await w.idle();
    expect((await tries(slow)).map((a) => a.responseStatus)).toEqual([200, null]);
  });

  it('twelve organizations whose targets hang take 90 of the 100 places; a thirteenth still gets one of the 10 kept for newcomers', async () => {
    const s = start();
    s.sender.answer = () => never();
    for (let i = 0; i < 12; i++) {
      const noisy = await s.org();
      for (let t = 0; t < 12; t++) await s.target(noisy);
      await s.fail(live(noisy), await s.endpoint(live(noisy)));
    }
    const w = worker();
    await w.tick(); // 12 × 13 = 156 due: 90 of them start, each organization at most 10
    const quiet = await s.org();
    const target = await s.target(quiet);
    await s.fail(live(quiet), await s.endpoint(live(quiet)));
    await w.tick(); // 10 places left: none for an organization already sending
    await expect.poll(() => s.sender.to(target).length, { timeout: SEND_TIMEOUT_MS }).toBe(1);
  });

  it('a send that throws (a secret the ring cannot open) is a failed try, recorded and retried, then given up', async () => {
    const s = start();
    const org = await s.org();
    const target = await s.target(org);
    s.sender.answer = () => Promise.reject(new Error('sealed with key a, which the key ring does not hold'));
    await s.fail(live(org), await s.endpoint(live(org)));
    const w = worker();
    for (const wait of [0, 10_000, 60_000, 5 * 60_000, 30 * 60_000, 60 * 60_000]) {
      s.clock.advance(wait);
      await w.tick();
      await w.idle();
    }
    const tries = await s.store.alerts.noticeAttempts(org, target, 10);
    expect(tries).toHaveLength(5); // the first try and four retries, then given up
    expect(tries[0]!.error).toBe('send failed: sealed with key a, which the key ring does not hold');
  });
});

describe('a store that fails', () => {
  it('a sent notice whose try could not be recorded (a failover) is recorded on asking again, not sent again at its lease’s end', async () => {
    const s = start();
    const org = await s.org();
    const target = await s.target(org);
    let sends = 0;
    s.sender.answer = async () => (sends++, ok);
    await s.fail(live(org), await s.endpoint(live(org)));
    const alerts = s.store.alerts;
    const record = alerts.recordNoticeAttempt;
    let failures = 2;
    alerts.recordNoticeAttempt = (...args) => (failures-- > 0 ? Promise.reject(new Error('the database is failing over')) : record.apply(alerts, args));
    try {
      const w = worker();
      await w.tick();
      await w.idle();
      expect((await alerts.noticeAttempts(org, target, 10)).map((a) => a.responseStatus)).toEqual([200]);
      s.clock.advance(60_000 + 1); // past the lease: nothing is left to claim
      await w.tick();
      await w.idle();
      expect(sends).toBe(1);
    } finally {
      alerts.recordNoticeAttempt = record;
    }
  });
});

describe('two replicas', () => {
  it('a send that outlives its lease: the replica that re-claimed it decides; nothing is sent a third time', async () => {
    const s = start();
    const org = await s.org();
    const target = await s.target(org);
    await s.fail(live(org), await s.endpoint(live(org)));
    const [one, two] = [worker(), worker()];
    s.sender.answer = never; // one's send stalls
    await one.tick();
    expect(s.sender.to(target)).toHaveLength(1);
    await two.tick(); // leased: two leaves it
    expect(s.sender.to(target)).toHaveLength(1);
    s.clock.advance(61_000); // the lease ran out while one was stalled
    s.sender.answer = async () => ok;
    await two.tick();
    await two.idle();
    await one.idle(); // one's try ends at its bound, after two's success
    expect(s.sender.to(target)).toHaveLength(2);
    for (const w of [one, two, one]) {
      s.clock.advance(60_000);
      await w.tick();
      await w.idle();
    }
    expect(s.sender.to(target)).toHaveLength(2);
    expect((await s.store.alerts.noticeAttempts(org, target, 10)).map((a) => a.responseStatus).sort()).toEqual([200, null]);
  });
});
