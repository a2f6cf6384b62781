// DeliveryLeases against a real (SQLite) store: claims hold for a lease's length, releases
// make the delivery due again, and a failing store call is counted and answered as "nothing
// happened" — logged once as an outage, which only a written completion ends.
import { UnavailableError } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_CLAIM_BATCH } from '@wirehook/store';
import { DeliveryLeases } from './delivery-leases.ts';
import { TenantHolds } from './tenant-holds.ts';
import { DispatchScene, recordingLogger } from './testing/dispatch-scene.ts';

const LEASE_MS = 17_000;
let s: DispatchScene;

beforeEach(() => {
  s = new DispatchScene();
});
afterEach(() => s.close());

const leases = (logger = silentLogger()) => new DeliveryLeases({ store: s.store, clock: s.clock, logger, metrics: s.metrics, leaseMs: LEASE_MS });
const busy = () => Promise.reject(new Error('database is locked'));

/** The sizes of the store's claimMany calls from here on. */
function countClaimCalls(): number[] {
  const calls: number[] = [];
  const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
  s.store.deliveries.claimMany = (ids, now, leaseUntil) => {
    calls.push(ids.length);
    return claimMany(ids, now, leaseUntil);
  };
  return calls;
}
const errors = (operation: string) => s.metric('wirehook_dispatch_store_errors_total', { operation });

describe('claim', () => {
  it('holds the delivery for the lease’s length (not due until then), and a second claim gets null', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const now = s.clock.now();
    const l = leases();
    expect((await l.claim(id!, now))?.delivery.id).toBe(id);
    expect(await l.claim(id!, now)).toBeNull();
    expect(await s.dueAt(now + LEASE_MS - 1, [id!])).toEqual([]);
    expect(await s.dueAt(now + LEASE_MS, [id!])).toEqual([id]);
  });

  it('claims that fail are each counted and answer null', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    s.store.deliveries.claimMany = busy;
    const l = leases();
    const now = s.clock.now();
    expect(await Promise.all([l.claim(a!, now), l.claim(b!, now)])).toEqual([null, null]);
    expect(await errors('claim')).toBe(2);
  });

  it('a claim the store fails alone answers null and is counted; the others of its call get their jobs', async () => {
    const { t } = await s.endpoint();
    const [a, b, c] = await s.due(t, 3);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    s.store.deliveries.claimMany = async (ids, now, leaseUntil) =>
      (await claimMany(ids, now, leaseUntil)).map((result, i) => (ids[i] === b ? { failed: 'the row did not read back' } : result));
    const l = leases();
    const now = s.clock.now();
    const jobs = await Promise.all([a, b, c].map((id) => l.claim(id!, now)));
    expect(jobs.map((job) => job?.delivery.id ?? null)).toEqual([a, null, c]);
    expect(await errors('claim')).toBe(1);
  });

  // A lease of 17 s and sends of up to 10 s: a claim answered more than 7 s after it was asked is not sent.
  it('a claim answered too late for its send to end within the lease answers null, counted; one just in time is sent', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    let delayMs = 7_000;
    s.store.deliveries.claimMany = async (ids, now, leaseUntil) => {
      const results = await claimMany(ids, now, leaseUntil);
      s.clock.advance(delayMs); // the store took this long to answer
      return results;
    };
    const l = new DeliveryLeases({ store: s.store, clock: s.clock, logger: silentLogger(), metrics: s.metrics, leaseMs: LEASE_MS, sendMs: 10_000 });
    expect((await l.claim(a!, s.clock.now()))?.delivery.id).toBe(a);
    expect(await errors('claim')).toBe(0);
    delayMs = 7_001;
    expect(await l.claim(b!, s.clock.now())).toBeNull();
    expect(await errors('claim')).toBe(1);
    // Its lease given back, due again 1 ms from now (as late as the answer was), not at the lease's end.
    await vi.waitFor(async () => expect(await s.dueAt(s.clock.now() + 1, [b!])).toEqual([b]));
    expect(await s.dueAt(s.clock.now(), [b!])).toEqual([]);
  });

  it('a claim that reads an hour late (the wall clock stepped forward during it) is given back due a lease from now at most, not an hour', async () => {
    const { t } = await s.endpoint();
    const [a] = await s.due(t, 1);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    s.store.deliveries.claimMany = async (ids, now, leaseUntil) => {
      const results = await claimMany(ids, now, leaseUntil);
      s.clock.advance(3_600_000);
      return results;
    };
    const released = Promise.withResolvers<number>();
    const release = s.store.deliveries.release.bind(s.store.deliveries);
    s.store.deliveries.release = async (claim, at) => {
      await release(claim, at);
      released.resolve(at);
    };
    expect(await leases().claim(a!, s.clock.now())).toBeNull();
    expect(await released.promise).toBe(s.clock.now() + LEASE_MS);
    expect(await s.dueAt(s.clock.now() + LEASE_MS, [a!])).toEqual([a]);
  });

  it('with a store without claimMany, a claim answered after its lease ended is not sent either', async () => {
    const { t } = await s.endpoint();
    const [a] = await s.due(t, 1);
    const claim = s.store.deliveries.claim.bind(s.store.deliveries);
    s.store.deliveries.claimMany = undefined;
    s.store.deliveries.claim = async (id, now, leaseUntil) => {
      const job = await claim(id, now, leaseUntil);
      s.clock.advance(LEASE_MS + 1);
      return job;
    };
    expect(await leases().claim(a!, s.clock.now())).toBeNull();
    expect(await errors('claim')).toBe(1);
  });

  it('an answer that does not add up (fewer results than claims) answers every claim null, each counted', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    s.store.deliveries.claimMany = async (ids, now, leaseUntil) => (await claimMany(ids, now, leaseUntil)).slice(1);
    const l = leases();
    const now = s.clock.now();
    expect(await Promise.all([l.claim(a!, now), l.claim(b!, now)])).toEqual([null, null]);
    expect(await errors('claim')).toBe(2);
  });

  it('with a store that has no claimMany (MongoDB), claims one at a time, each answered as it ends; a failure counted', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const deliveries = s.store.deliveries;
    const claim = deliveries.claim.bind(deliveries);
    const asked: string[] = [];
    deliveries.claimMany = undefined;
    deliveries.claim = (id, now, leaseUntil) => (asked.push(id), id === b ? busy() : claim(id, now, leaseUntil));
    const l = leases();
    const now = s.clock.now();
    const jobs = await Promise.all([l.claim(a!, now), l.claim(b!, now)]);
    expect(jobs.map((job) => job?.delivery.id ?? null)).toEqual([a, null]);
    expect(asked).toEqual([a, b]);
    expect(await errors('claim')).toBe(1);
  });

  it('the claims of one turn go in one store call, each answered with its own job (null when not claimable)', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 3);
    const calls = countClaimCalls();
    const l = leases();
    const now = s.clock.now();
    const jobs = await Promise.all([...ids, ids[0]!].map((id) => l.claim(id, now)));
    expect(jobs.map((job) => job?.delivery.id ?? null)).toEqual([...ids, null]);
    expect(calls).toEqual([4]);
  });

  it(`takes at most MAX_CLAIM_BATCH (${MAX_CLAIM_BATCH}) a store call: ${MAX_CLAIM_BATCH + 1} claims of one turn are two calls`, async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, MAX_CLAIM_BATCH + 1);
    const calls = countClaimCalls();
    const l = leases();
    const now = s.clock.now();
    const jobs = await Promise.all(ids.map((id) => l.claim(id, now)));
    expect(jobs.every((job) => job !== null)).toBe(true);
    expect(calls).toEqual([MAX_CLAIM_BATCH, 1]);
  });

  it('claims asked at different moments of one turn are made as of the latest: due by then, leased from then', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const now = s.clock.now();
    const l = leases();
    // A minute ago `a` was not due yet; asked together with a claim as of now, it is claimed as of now.
    const [early, late] = await Promise.all([l.claim(a!, now - 60_000), l.claim(b!, now)]);
    expect([early?.delivery.id, late?.delivery.id]).toEqual([a, b]);
    expect(await s.dueAt(now + LEASE_MS - 1, [a!])).toEqual([]);
    expect(await s.dueAt(now + LEASE_MS, [a!])).toEqual([a]);
  });
});

describe('release', () => {
  it('makes the delivery due again at the given time', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const job = await s.claim(id!);
    const at = s.clock.now() + 60_000;
    await leases().release(job, at);
    expect(await s.dueAt(at - 1, [id!])).toEqual([]);
    expect(await s.dueAt(at, [id!])).toEqual([id]);
  });

  it('a release that fails is counted and leaves the lease to run out', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const job = await s.claim(id!);
    s.store.deliveries.release = busy;
    await leases().release(job, s.clock.now());
    expect(await errors('release')).toBe(1);
    expect(await s.dueAt(s.clock.now(), [id!])).toEqual([]);
  });
});

describe('complete', () => {
  it('writes the outcome under the lease', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const job = await s.claim(id!);
    expect(await leases().complete(job, s.m.succeeded(job, s.clock.now()))).toMatchObject({ applied: true, endpointDisabled: false });
    expect(await s.statusOf(t, id!)).toBe('success');
  });

  it('store calls failing are one outage: its first error logged, ended by the next written completion (not by a claim)', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const { logger, lines } = recordingLogger();
    const l = leases(logger);
    const job = await s.claim(a!);
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    s.store.deliveries.complete = busy;
    expect(await l.complete(job, s.m.succeeded(job, s.clock.now()))).toBeNull();
    expect(await l.complete(job, s.m.succeeded(job, s.clock.now()))).toBeNull();
    expect(await errors('complete')).toBe(2);
    expect(lines.filter((line) => line['level'] === 40)).toHaveLength(1);
    s.store.deliveries.complete = complete;
    expect(await l.claim(b!, s.clock.now())).not.toBeNull();
    expect(lines).toHaveLength(1);
    expect(await l.complete(job, s.m.succeeded(job, s.clock.now()))).toMatchObject({ applied: true });
    expect(lines.map((line) => line['msg'])).toEqual([
      'store calls failing: the delivery is left to the sweeper (once any lease it holds runs out)',
      "store calls failing no more, after 0 s: 2 deliveries' store calls failed (the sweeper finds them again, once any lease they hold runs out)",
    ]);
  });
});

describe('a store refusing a tenant’s calls for overload', () => {
  const overloaded = () => Promise.reject(new UnavailableError('the database did not answer in time', { overloaded: true }));
  const holding = () => {
    const holds = new TenantHolds(s.clock);
    const wakes: number[] = [];
    const l = new DeliveryLeases({
      store: s.store,
      clock: s.clock,
      logger: silentLogger(),
      metrics: s.metrics,
      leaseMs: LEASE_MS,
      holds,
      wakeAt: (at) => wakes.push(at),
    });
    return { holds, wakes, l };
  };

  it('a completion or a release refused holds its tenant and asks for a sweep at the hold’s end; a failover’s holds nothing', async () => {
    const { t } = await s.endpoint();
    const [a, b] = await s.due(t, 2);
    const { holds, wakes, l } = holding();
    const [first, second] = [await s.claim(a!), await s.claim(b!)];
    s.store.deliveries.complete = () => Promise.reject(new UnavailableError('the database is failing over'));
    expect(await l.complete(first, s.m.succeeded(first, s.clock.now()))).toBeNull();
    expect(holds.held(t)).toBe(false);
    s.store.deliveries.release = overloaded;
    await l.release(second, s.clock.now());
    expect(holds.held(t)).toBe(true);
    expect(wakes).toEqual([s.clock.now() + 250]);
    expect(await s.metric('wirehook_dispatch_tenant_holds_total')).toBe(1);
  });

  it('a completion written after the hold ended starts the next at 250 ms again', async () => {
    const { t } = await s.endpoint();
    const [a, b, c] = await s.due(t, 3);
    const { wakes, l } = holding();
    const jobs = [await s.claim(a!), await s.claim(b!), await s.claim(c!)];
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    s.store.deliveries.complete = overloaded;
    await l.complete(jobs[0]!, s.m.succeeded(jobs[0]!, s.clock.now()));
    s.clock.advance(250);
    await l.complete(jobs[1]!, s.m.succeeded(jobs[1]!, s.clock.now()));
    expect(wakes.map((at) => at - s.clock.now())).toEqual([0, 500]);
    s.clock.advance(500);
    s.store.deliveries.complete = complete;
    expect(await l.complete(jobs[1]!, s.m.succeeded(jobs[1]!, s.clock.now()))).toMatchObject({ applied: true });
    s.store.deliveries.complete = overloaded;
    await l.complete(jobs[2]!, s.m.succeeded(jobs[2]!, s.clock.now()));
    expect(wakes.at(-1)! - s.clock.now()).toBe(250);
  });

  it('a claim refused for overload holds the tenant its wake-up named, alone or in a call of several; one naming none holds nothing', async () => {
    const one = await s.endpoint();
    const two = await s.endpoint();
    const [a] = await s.due(one.t);
    const [b] = await s.due(two.t);
    const { holds, l } = holding();
    s.store.deliveries.claimMany = overloaded;
    expect(await Promise.all([l.claim(a!, s.clock.now(), one.t), l.claim(b!, s.clock.now())])).toEqual([null, null]);
    expect([holds.held(one.t), holds.held(two.t)]).toEqual([true, false]);
    // A store that claims one at a time (MongoDB).
    s.store.deliveries.claimMany = undefined;
    s.store.deliveries.claim = overloaded;
    expect(await l.claim(b!, s.clock.now(), two.t)).toBeNull();
    expect(holds.held(two.t)).toBe(true);
  });
});
