// The alerting engine against a real (SQLite) store with the injected clock: fairness between
// organizations, a notice sent to nobody opens nothing, and the spec's numbers on both sides
// of each edge (written here, not imported from the code under test).
import type { AlertConditions, AlertTargetId, Endpoint, OrgId, Tenant } from '@wirehook/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertingWorker } from './alerting-worker.ts';
import { AlertScene } from './testing/alert-scene.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let scene: AlertScene;
let worker: AlertingWorker;
afterEach(async () => {
  await worker?.stop();
  await scene?.close();
});
/** A scene and its worker; `replace`: the store's alerts methods the worker sees instead (alertsWith). */
function start(startAt?: number, replace?: Parameters<typeof alertsWith>[1]): AlertScene {
  scene = new AlertScene(startAt);
  worker = replace === undefined ? scene.worker() : scene.worker({ store: { ...scene.store, alerts: alertsWith(scene, replace) } });
  return scene;
}
/** One tick, and the sends it started. */
async function round(): Promise<void> {
  await worker.tick();
  await worker.idle();
}
const live = (orgId: OrgId): Tenant => ({ orgId, env: 'live' });
/** The same conditions for both environments of the organization (each has its own). */
async function choose(s: AlertScene, orgId: OrgId, conditions: AlertConditions): Promise<void> {
  for (const env of ['live', 'test'] as const) await s.store.alerts.setConditions({ orgId, env }, conditions, s.clock.now());
}
const types = (notices: { type: string }[]) => notices.map((n) => n.type);
/** The scene's alert repo with some of its methods replaced (`target`: the repo itself), the rest its own. */
function alertsWith(s: AlertScene, replace: (target: AlertScene['store']['alerts']) => Record<string, unknown>): AlertScene['store']['alerts'] {
  const replaced = replace(s.store.alerts);
  return new Proxy(s.store.alerts, {
    get(target, key) {
      if (typeof key === 'string' && key in replaced) return replaced[key];
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('fairness between organizations', () => {
  it("another organization's flood of failures does not hold back a notice: B's goes in the first tick", async () => {
    const s = start();
    const a = await s.org();
    await s.target(a);
    const flooded: Endpoint[] = [];
    for (let i = 0; i < 5; i++) flooded.push(await s.endpoint(live(a)));
    // A at its rate limit, every endpoint answering 503 with retry count 0: 3,000 exhausted deliveries.
    for (let i = 0; i < 600; i++) for (const e of flooded) await s.fail(live(a), e);
    s.clock.advance(SECOND);
    const b = await s.org();
    const bTarget = await s.target(b);
    await s.fail(live(b), await s.endpoint(live(b)));
    await round();
    expect(types(s.sender.to(bTarget))).toEqual(['alert.delivery_failure']);
  }, 120_000); // 3,000 failures written through the store first: ~10 s quiet, 25 s on a busy 2-core machine

  it("a thousand failing endpoints elsewhere do not hide an older streak's 60-minute notice", async () => {
    const s = start();
    const b = await s.org();
    const bTarget = await s.target(b);
    const old = await s.endpoint(live(b), { count: 7, interval: 'progressive' });
    await s.fail(live(b), old, 'retrying');
    s.clock.advance(MINUTE);
    const a = await s.org();
    await s.target(a);
    for (let i = 0; i < 1_000; i++) await s.fail(live(a), await s.endpoint(live(a), { count: 7, interval: 'progressive' }), 'retrying');
    s.clock.advance(59 * MINUTE);
    for (let i = 0; i < 3; i++) await round();
    expect(s.sender.to(bTarget).map((n) => n.data.endpoints.map((e) => e.id))).toEqual([[old.id]]);
  });

  it("an endpoint's repeated failures collapse into one queued event", async () => {
    const s = start();
    const a = await s.org();
    const e = await s.endpoint(live(a));
    for (let i = 0; i < 50; i++) await s.fail(live(a), e);
    expect((await s.store.alerts.events(a, 1_000)).map((x) => x.kind).sort()).toEqual(['exhausted', 'failing']);
  });
});

describe('a notice with no target', () => {
  it('opens no hour: conditions and a target set after a failure, the next failure is told at once', async () => {
    const s = start();
    const org = await s.org();
    const x = await s.endpoint(live(org));
    await s.fail(live(org), x); // nobody to tell
    await round();
    s.clock.advance(MINUTE);
    await choose(s, org, { delivery_failure: 'first', automatic_stop: true, pending_retries: 1_000, usage: 80 });
    const target = await s.target(org);
    s.clock.advance(MINUTE);
    await s.fail(live(org), x); // the same endpoint: not throttled by the notice nobody got
    await round();
    expect(s.sender.to(target).map((n) => n.data.endpoints.map((e) => e.id))).toEqual([[x.id]]);

    // Another organization: a first failure to nobody does not make a second endpoint wait an hour.
    const other = await s.org();
    await s.fail(live(other), await s.endpoint(live(other)));
    await round();
    const otherTarget = await s.target(other);
    s.clock.advance(MINUTE);
    const second = await s.endpoint(live(other));
    await s.fail(live(other), second);
    await round();
    expect(s.sender.to(otherTarget).map((n) => n.data.endpoints.map((e) => e.id))).toEqual([[second.id]]);
  });
});

describe("the spec's numbers", () => {
  it('throttle: the same endpoint again at 59:59 waits (not told twice within the hour) and goes at 60:00, combined with another that waited', async () => {
    const s = start();
    const org = await s.org();
    const target = await s.target(org);
    const x = await s.endpoint(live(org));
    const y = await s.endpoint(live(org));
    const t0 = s.clock.now();
    await s.fail(live(org), x);
    await round();
    expect(s.sender.to(target)).toHaveLength(1);
    s.clock.advance(10 * MINUTE);
    await s.fail(live(org), y); // the organization's hour runs: y waits
    await round();
    s.clock.advance(t0 + HOUR - SECOND - s.clock.now());
    await s.fail(live(org), x);
    await round();
    expect(s.sender.to(target)).toHaveLength(1); // 59:59: x suppressed, y still waiting
    s.clock.advance(SECOND);
    await s.fail(live(org), x);
    await round();
    const ids = s.sender.to(target).map((n) => n.data.endpoints.map((e) => e.id).sort());
    expect(ids).toEqual([[x.id], [x.id, y.id].sort()]); // 60:00: the hour's waiting endpoints, one combined notice
    await round();
    s.clock.advance(MINUTE);
    await s.fail(live(org), x);
    await round();
    expect(s.sender.to(target)).toHaveLength(2); // x waits in the new hour (opened by the combined notice at 60:00)
  });

  for (const [choice, minutes] of [
    ['15m', 15],
    ['60m', 60],
  ] as const) {
    it(`'${choice}': none at ${minutes - 1}:59, one at ${minutes}:00, once per streak`, async () => {
      const s = start();
      const org = await s.org();
      await choose(s, org, { delivery_failure: choice, automatic_stop: true, pending_retries: 1_000, usage: 80 });
      const target = await s.target(org);
      const e = await s.endpoint(live(org), { count: 7, interval: 'progressive' });
      await s.fail(live(org), e, 'retrying');
      await round();
      s.clock.advance(minutes * MINUTE - SECOND);
      await round();
      expect(s.sender.to(target)).toHaveLength(0);
      s.clock.advance(SECOND);
      await round();
      expect(s.sender.to(target).map((n) => n.type)).toEqual(['alert.delivery_failure']);
      s.clock.advance(2 * HOUR);
      await round();
      expect(s.sender.to(target)).toHaveLength(1);
    });
  }

  it('pending retries: 100 none, 101 one (summed across endpoints, per environment), once a UTC day', async () => {
    const s = start(Date.UTC(2026, 4, 12, 23, 50, 0));
    const org = await s.org();
    await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 100, usage: 80 });
    const liveTarget = await s.target(org);
    const testTarget = await s.target(org, 'test');
    const retry = { count: 7, interval: 'progressive' } as const;
    const [one, two] = [await s.endpoint(live(org), retry), await s.endpoint(live(org), retry)];
    for (let i = 0; i < 50; i++) await s.fail(live(org), one, 'retrying');
    for (let i = 0; i < 50; i++) await s.fail(live(org), two, 'retrying');
    const testEnv: Tenant = { orgId: org, env: 'test' };
    const testEndpoint = await s.endpoint(testEnv, retry);
    for (let i = 0; i < 60; i++) await s.fail(testEnv, testEndpoint, 'retrying');
    const pending = (target: typeof liveTarget) => s.sender.to(target).filter((n) => n.type === 'alert.pending_retries');
    await round();
    expect(pending(liveTarget)).toHaveLength(0); // 100 live (the organization's 160 are two environments)
    await s.fail(live(org), two, 'retrying');
    s.clock.advance(MINUTE);
    await round();
    expect(pending(liveTarget).map((n) => [n.data.retrying, n.data.threshold, n.data.environments])).toEqual([[101, 100, ['live']]]);
    expect(pending(testTarget)).toHaveLength(0);
    s.clock.advance(MINUTE);
    await round();
    expect(pending(liveTarget)).toHaveLength(1); // once that day (23:52)
    s.clock.advance(10 * MINUTE); // 00:02 the next UTC day
    await round();
    expect(pending(liveTarget)).toHaveLength(2);
  });

  it('a retrying total read only as "at least 101" (MongoDB counts each only that far each minute) is counted before it notifies: 150, not 101', async () => {
    // The store as MongoDB answers the minute's walk: each environment's count stopped at `min`.
    const counted: number[] = [];
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0), (target) => ({
      retryingCounts: async (min: number, after: OrgId | null, orgs: number) => {
        const page = await target.retryingCounts(min, after, orgs);
        return { ...page, counts: page.counts.map((r) => ({ ...r, count: Math.min(r.count, min), exact: false })) };
      },
      retryingCount: async (t: Tenant, upTo: number) => {
        counted.push(upTo);
        return target.retryingCount(t, upTo);
      },
    }));
    const org = await s.org();
    await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 100, usage: 80 });
    const target = await s.target(org);
    const endpoint = await s.endpoint(live(org), { count: 7, interval: 'progressive' });
    for (let i = 0; i < 150; i++) await s.fail(live(org), endpoint, 'retrying');
    await round();
    const pending = s.sender.to(target).filter((n) => n.type === 'alert.pending_retries');
    expect(pending.map((n) => [n.data.retrying, n.data.threshold])).toEqual([[150, 100]]);
    // Past its threshold first (101 keys at most), then the notice's figure.
    expect(counted).toEqual([101, 10_001]);
    // Another at its threshold of 1,000 with 150 waiting: counted to 1,001 only, each minute.
    const other = await s.org();
    await choose(s, other, { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: 80 });
    await s.target(other);
    const e2 = await s.endpoint(live(other), { count: 7, interval: 'progressive' });
    for (let i = 0; i < 150; i++) await s.fail(live(other), e2, 'retrying');
    counted.length = 0;
    s.clock.advance(MINUTE);
    await round();
    expect(counted).toEqual([1_001]);
  });

  it('a walk of retrying organizations longer than a tick reads goes on over the next ticks, and a new pass starts a minute after the last began', async () => {
    // The store as MongoDB pages its walk, one organization a page (the worker asks for 200).
    const afters: (OrgId | null)[] = [];
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0), (target) => ({
      retryingCounts: async (min: number, after: OrgId | null, orgs: number) => {
        afters.push(after);
        expect(orgs).toBe(200);
        const all = (await target.retryingCounts(min, after, orgs)).counts;
        const first = all[0]?.tenant.orgId;
        const page = all.filter((r) => r.tenant.orgId === first);
        return { counts: page, next: first !== undefined && all.some((r) => r.tenant.orgId !== first) ? first : null };
      },
    }));
    const targets: AlertTargetId[] = [];
    const orgs: OrgId[] = [];
    for (let i = 0; i < 3; i++) {
      const org = await s.org();
      orgs.push(org);
      await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 100, usage: 80 });
      targets.push(await s.target(org));
      const endpoint = await s.endpoint(live(org), { count: 7, interval: 'progressive' });
      for (let k = 0; k < 101; k++) await s.fail(live(org), endpoint, 'retrying');
    }
    const told = () => targets.filter((t) => s.sender.to(t).some((n) => n.type === 'alert.pending_retries')).length;
    const sorted = [...orgs].sort();
    await round();
    await round();
    // Two pages read, the pass not ended: nothing decided from it yet.
    expect(afters).toEqual([null, sorted[0]]);
    expect(told()).toBe(0);
    await round();
    expect(afters).toEqual([null, sorted[0], sorted[1]]);
    expect(told()).toBe(3);
    // The pass ended: none begins again before its minute is up.
    s.clock.advance(MINUTE - SECOND);
    await round();
    expect(afters).toHaveLength(3);
    s.clock.advance(SECOND);
    await round();
    expect(afters).toEqual([null, sorted[0], sorted[1], null]);
    // A pass still under way when its minute is up goes on where it stands: begun again, the organizations past a
    // minute's pages would never be read.
    s.clock.advance(2 * MINUTE);
    await round();
    expect(afters).toEqual([null, sorted[0], sorted[1], null, sorted[0]]);
  }, 60_000);

  it('a read of the periodic totals that keeps failing holds back no other notice, and is tried again 5 s later, then 10', async () => {
    let reads = 0;
    let failing = true;
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0), (target) => ({
      retryingCounts: async (min: number, after: OrgId | null, orgs: number) => {
        reads++;
        if (failing) throw new Error('not primary');
        return target.retryingCounts(min, after, orgs);
      },
    }));
    const org = await s.org();
    await choose(s, org, { delivery_failure: 'first', automatic_stop: true, pending_retries: 100, usage: 80 });
    const target = await s.target(org);
    await s.fail(live(org), await s.endpoint(live(org)));
    await round();
    expect(types(s.sender.to(target))).toEqual(['alert.delivery_failure']);
    expect(reads).toBe(1);
    s.clock.advance(5 * SECOND - 1);
    await round();
    expect(reads).toBe(1);
    s.clock.advance(1);
    await round();
    expect(reads).toBe(2);
    s.clock.advance(10 * SECOND - 1);
    await round();
    expect(reads).toBe(2);
    s.clock.advance(1);
    await round();
    expect(reads).toBe(3);
    // A clock stepped back during the wait (20 s now): tried again at once, not once the clock has caught up.
    s.clock.advance(-MINUTE);
    await round();
    expect(reads).toBe(4);
    // Read (40 s after that fourth failure), the pass ends; the next one's first failure waits 5 s again, not 80.
    failing = false;
    s.clock.advance(40 * SECOND);
    await round();
    expect(reads).toBe(5);
    failing = true;
    // The next pass: a minute after the last began (at the start, before the clock stepped back).
    s.clock.advance(MINUTE + 5 * SECOND);
    await round();
    expect(reads).toBe(6);
    s.clock.advance(5 * SECOND);
    await round();
    expect(reads).toBe(7);
  });

  it('a page read after failures resets the wait: the same pass’s next failure is tried again 5 s on', async () => {
    const answers: ('fail' | 'page')[] = ['fail', 'fail', 'page', 'fail', 'page'];
    let reads = 0;
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0), () => ({
      retryingCounts: async () => {
        reads++;
        if (answers.shift() === 'fail') throw new Error('not primary');
        return { counts: [], next: 'org_0' as OrgId };
      },
    }));
    await round(); // fails: 5 s
    s.clock.advance(5 * SECOND);
    await round(); // fails: 10 s
    s.clock.advance(10 * SECOND);
    await round(); // a page
    expect(reads).toBe(3);
    s.clock.advance(SECOND);
    await round(); // the next page fails
    expect(reads).toBe(4);
    s.clock.advance(5 * SECOND);
    await round();
    expect(reads).toBe(5);
  });

  it("a read of the month's usage that fails ends its pass all the same: the next minute's walk begins", async () => {
    let walks = 0;
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0), (target) => ({
      liveMonthUsage: async () => {
        throw new Error('not primary');
      },
      retryingCounts: async (min: number, after: OrgId | null, orgs: number) => {
        walks++;
        return target.retryingCounts(min, after, orgs);
      },
    }));
    await round();
    s.clock.advance(MINUTE);
    await round();
    expect(walks).toBe(2);
  });

  it("reads the month's usage when its pass's walk ends, in the month the pass is decided in", async () => {
    const calls: string[] = [];
    const s = start(Date.UTC(2026, 4, 31, 23, 59, 59), (target) => ({
      retryingCounts: async (min: number, after: OrgId | null, orgs: number) => {
        calls.push(`retrying after ${after ?? 'none'}`);
        // A walk of two pages: the first ends before midnight, the second after.
        if (after === null) return { counts: [], next: 'org_0' as OrgId };
        return target.retryingCounts(min, after, orgs);
      },
      liveMonthUsage: async (month: string, now: number) => {
        calls.push(`usage of ${month}`);
        return target.liveMonthUsage(month, now);
      },
    }));
    await round();
    s.clock.advance(2 * SECOND);
    await round();
    expect(calls).toEqual(['retrying after none', 'retrying after org_0', 'usage of 2026-06']);
  });

  it('periodic readings wait their turn: with 101 organizations over the 100 a tick, the 101st is decided in the next minute', async () => {
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0));
    const orgs: { org: OrgId; target: AlertTargetId }[] = [];
    for (let i = 0; i < 101; i++) {
      const org = await s.org('free'); // 10,000 a month
      await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: 50 });
      orgs.push({ org, target: await s.target(org) });
      s.setLiveUsage(org, 5_000);
    }
    const told = () => orgs.filter(({ target }) => s.sender.to(target).some((n) => n.type === 'alert.usage')).length;
    await round();
    expect(told()).toBe(100);
    // A new minute's readings queue the 100 told again, behind the one still waiting (before:
    // they replaced the queue, and the 101st never had a turn).
    s.clock.advance(MINUTE);
    await round();
    expect(told()).toBe(101);
  });

  it("a reading of May's messages decides nothing in June: the 101st organization, its turn after midnight, is not told May's figure", async () => {
    const s = start(Date.UTC(2026, 4, 31, 23, 59, 45));
    const targets: AlertTargetId[] = [];
    for (let i = 0; i < 101; i++) {
      const org = await s.org('free'); // 10,000 a month
      await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: 50 });
      targets.push(await s.target(org));
      s.setLiveUsage(org, 9_000); // May's
    }
    const told = () => targets.filter((t) => s.sender.to(t).some((n) => n.type === 'alert.usage')).length;
    await round();
    expect(told()).toBe(100);
    s.clock.advance(20 * SECOND); // 2026-06-01T00:00:05Z: the same minute's readings, a new month
    await round();
    expect(told()).toBe(100);
  });

  it('an organization under 5,000 live messages (50 % of the smallest plan, 10,000) is not decided for its usage: 4,999 not, 5,000 yes', async () => {
    const s = start(Date.UTC(2026, 4, 12, 9, 0, 0));
    const [under, at] = [await s.org('business'), await s.org('business')];
    s.setLiveUsage(under, 4_999);
    s.setLiveUsage(at, 5_000);
    // Deciding an organization's usage reads the organization (its plan): count whose.
    const read: string[] = [];
    const get = s.store.orgs.get.bind(s.store.orgs);
    s.store.orgs.get = async (id) => {
      read.push(id);
      return get(id);
    };
    await round();
    expect(read).toEqual([at]);
  });

  it('usage: 4,999 of 10,000 none at 50 %, 5,000 one; once a month, again the next month; 80 and 100 % likewise', async () => {
    const s = start(Date.UTC(2026, 4, 31, 23, 0, 0));
    const org = await s.org('free'); // 10,000 a month
    await choose(s, org, { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: 50 });
    const target = await s.target(org);
    const usage = () => s.sender.to(target).filter((n) => n.type === 'alert.usage');
    s.setLiveUsage(org, 4_999);
    await round();
    expect(usage()).toHaveLength(0);
    s.setLiveUsage(org, 5_000);
    s.clock.advance(MINUTE);
    await round();
    expect(usage().map((n) => [n.data.used, n.data.limit, n.data.percent, n.data.threshold])).toEqual([[5_000, 10_000, 50, 50]]);
    s.setLiveUsage(org, 9_000);
    s.clock.advance(MINUTE);
    await round();
    expect(usage()).toHaveLength(1); // once this month, whatever it climbs to
    s.clock.advance(HOUR); // June
    s.setLiveUsage(org, 5_000);
    await round();
    expect(usage()).toHaveLength(2);

    for (const [share, below, at] of [
      [80, 7_999, 8_000],
      [100, 9_999, 10_000],
    ] as const) {
      const other = await s.org('free');
      await choose(s, other, { delivery_failure: '60m', automatic_stop: true, pending_retries: 1_000, usage: share });
      const t = await s.target(other);
      s.setLiveUsage(other, below);
      s.clock.advance(MINUTE);
      await round();
      expect(
        s.sender.to(t).filter((n) => n.type === 'alert.usage'),
        `${share} % below`,
      ).toHaveLength(0);
      s.setLiveUsage(other, at);
      s.clock.advance(MINUTE);
      await round();
      expect(
        s.sender
          .to(t)
          .filter((n) => n.type === 'alert.usage')
          .map((n) => n.data.threshold),
        `${share} % at`,
      ).toEqual([share]);
    }
  });

  it('a usage notice with no live target is not counted as sent: a target added later is told that month', async () => {
    const s = start();
    const org = await s.org('free');
    s.setLiveUsage(org, 8_000);
    await round();
    const target = await s.target(org);
    s.clock.advance(MINUTE);
    await round();
    expect(s.sender.to(target).map((n) => n.type)).toEqual(['alert.usage']);
  });
});

describe('content', () => {
  it("names the last failed attempt's message and delivery, from the event and from the 60-minute walk", async () => {
    const s = start();
    const org = await s.org();
    const target = await s.target(org);
    await s.fail(live(org), await s.endpoint(live(org)));
    await s.fail(live(org), await s.endpoint(live(org), { count: 7, interval: 'progressive' }), 'retrying');
    await round();
    s.clock.advance(HOUR);
    await round();
    const named = s.sender.to(target).flatMap((n) => n.data.endpoints.map((e) => [e.message_id, e.delivery_id]));
    expect(named).toEqual([
      [expect.stringMatching(/^msg_/), expect.stringMatching(/^dlv_/)],
      [expect.stringMatching(/^msg_/), expect.stringMatching(/^dlv_/)],
    ]);
  });
});

describe('environments', () => {
  it("a target receives only its environment's notices", async () => {
    const s = start();
    const org = await s.org();
    const liveTarget = await s.target(org);
    const testTarget = await s.target(org, 'test');
    const testEnv: Tenant = { orgId: org, env: 'test' };
    await s.fail(testEnv, await s.endpoint(testEnv));
    await round();
    expect(s.sender.to(liveTarget)).toHaveLength(0);
    expect(s.sender.to(testTarget).map((n) => n.data.environments)).toEqual([['test']]);
    // The test environment's hour does not hold back a live notice.
    await s.fail(live(org), await s.endpoint(live(org)));
    await round();
    expect(s.sender.to(liveTarget).map((n) => n.data.environments)).toEqual([['live']]);
  });
});
