// The dispatcher as its callers see it (start, sweep, room, take, stop) against a real SQLite
// store and the in-process bus: what is due is sent once, an endpoint never has more than its
// slots, hand-offs beyond the room go back to the store, and faults leave the delivery to its lease.
import { DISPATCH_SUBJECT, dispatchJobHeaders, encodeDispatchJob } from '@wirehook/bus';
import { SecretBox, UnavailableError, type DeliveryId, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DispatchScene, FakeSender, tokenResult, until } from './testing/dispatch-scene.ts';
import type { SendResult } from './outcome.ts';
import { Dispatcher, type DispatcherConfig } from './dispatcher.ts';
import { TransformRunner } from '@wirehook/transform';

/** Threads start at a first run: the tests without a transformation start none. */
const transforms = new TransformRunner();

const LEASE_MS = 17_000;
let s: DispatchScene;
let sender: FakeSender;
let running: Dispatcher[];

beforeEach(() => {
  s = new DispatchScene();
  sender = new FakeSender();
  running = [];
});
afterEach(async () => {
  sender.release();
  for (const d of running) await d.stop();
  await s.close();
});

/** A dispatcher whose timer never sweeps during a test: tests sweep by hand. */
async function started(config: Partial<DispatcherConfig> = {}): Promise<Dispatcher> {
  const d = new Dispatcher({
    store: s.store,
    bus: s.bus,
    sender,
    relay: sender,
    secretBox: s.box,
    clock: s.clock,
    logger: silentLogger(),
    metrics: s.metrics,
    throughputMetrics: s.throughputMetrics,
    kv: s.kv,
    transforms,
    config: {
      concurrency: 10,
      slotsPerEndpoint: 2,
      leaseMs: LEASE_MS,
      sweepIntervalMs: 3_600_000,
      sweepBatch: 100,
      releaseLeasesAtStart: false,
      timeoutMs: 1_000,
      ...config,
    },
  });
  running.push(d);
  await d.start();
  return d;
}

describe('sweep and send', () => {
  it('a due delivery is published by the sweep, claimed, sent once and its attempt recorded', async () => {
    const { t, endpoint } = await s.endpoint();
    const [id] = await s.due(t);
    await started();
    await until(async () => (await s.statusOf(t, id!)) === 'success');
    expect(sender.requests.map((r) => r.poolKey)).toEqual([endpoint.id]);
    expect(await s.metric('wirehook_delivery_attempts_total', { outcome: 'success', via: 'direct' })).toBe(1);
  });

  it('fixed_ip endpoints are sent through the relay, never directly', async () => {
    const relay = new FakeSender();
    const { t } = await s.endpoint({ fixedIp: true });
    const [id] = await s.due(t);
    const d = new Dispatcher({
      store: s.store,
      bus: s.bus,
      sender,
      relay,
      secretBox: s.box,
      clock: s.clock,
      logger: silentLogger(),
      metrics: s.metrics,
      throughputMetrics: s.throughputMetrics,
      kv: s.kv,
      transforms,
      config: {
        concurrency: 10,
        slotsPerEndpoint: 2,
        leaseMs: LEASE_MS,
        sweepIntervalMs: 3_600_000,
        sweepBatch: 100,
        releaseLeasesAtStart: false,
        timeoutMs: 1_000,
      },
    });
    running.push(d);
    await d.start();
    await until(async () => (await s.statusOf(t, id!)) === 'success');
    expect([relay.requests.length, sender.requests.length]).toEqual([1, 0]);
    expect(await s.metric('wirehook_delivery_attempts_total', { outcome: 'success', via: 'relay' })).toBe(1);
  });

  it('an endpoint has at most its slots at once; the rest wait here and are sent as slots free', async () => {
    const { t, endpoint } = await s.endpoint();
    const ids = await s.due(t, 5);
    sender.hold();
    // The tenant may use every place: here only its endpoint's slots bound it.
    await started({ slotsPerEndpoint: 2, placesPerTenant: 10 });
    await until(() => sender.held() === 2 && s.metric('wirehook_dispatch_waiting_deliveries').then((n) => n === 3));
    sender.answer();
    await until(() => sender.held() === 2 && sender.requests.length === 3);
    sender.release();
    await until(async () => (await Promise.all(ids.map((id) => s.statusOf(t, id)))).every((st) => st === 'success'));
    expect(sender.requests.filter((r) => r.poolKey === endpoint.id)).toHaveLength(5);
    expect(await s.metric('wirehook_dispatch_waiting_deliveries')).toBe(0);
  });

  it('a sweep takes at most an endpoint’s slots and parking of its due deliveries; the rest as places free, not at the next tick', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 8);
    sender.hold();
    // 1 slot and 4 parked per slot: the first sweep takes 5 of the endpoint's 8 due deliveries.
    await started({ slotsPerEndpoint: 1 });
    await until(() => sender.held() === 1 && s.metric('wirehook_dispatch_waiting_deliveries').then((n) => n === 4));
    // Parked deliveries were given back (due, not leased) while they wait: only the send holds a lease.
    await until(async () => (await s.dueAt(s.clock.now(), ids)).length === 7);
    sender.release();
    // The endpoint filled its share of the sweep's page: behind, so the rest is fetched as
    // places free (the test's sweep timer is an hour away).
    await until(async () => (await Promise.all(ids.map((id) => s.statusOf(t, id)))).every((st) => st === 'success'));
    expect(sender.requests).toHaveLength(8);
  });

  it('due deliveries a sweep finds while the endpoint’s slots and parking are full are fetched as soon as its queue drains', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 8);
    sender.hold();
    const d = await started({ slotsPerEndpoint: 1 });
    await until(() => sender.held() === 1 && s.metric('wirehook_dispatch_waiting_deliveries').then((n) => n === 4));
    await d.sweep(); // finds the other 3, and no room for them: left in the store
    sender.release();
    await until(async () => (await Promise.all(ids.map((id) => s.statusOf(t, id)))).every((st) => st === 'success'));
    expect(sender.requests).toHaveLength(8);
  });

  it('every place taken: a send’s end gives its endpoint’s turn to the delivery parked behind it, which finds the freed place', async () => {
    // 4 places, 1 slot an endpoint: endpoint X sends one and parks two; three other tenants' hung sends take the rest.
    const x = await s.endpoint();
    const xIds = await s.due(x.t, 3);
    sender.hold();
    await started({ concurrency: 4, slotsPerEndpoint: 1, placesPerTenant: 4 });
    const wake = (id: DeliveryId) => s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id));
    for (const id of xIds) await wake(id);
    await until(() => sender.held(x.endpoint.id) === 1 && s.metric('wirehook_dispatch_waiting_deliveries').then((n) => n === 2));
    for (let i = 0; i < 3; i++) {
      const other = await s.endpoint();
      const [id] = await s.due(other.t);
      await wake(id!);
    }
    await until(() => sender.held() === 4);
    // X's send answered: its turn goes to X's next parked delivery, sent at once (the sweep's timer is an hour away).
    sender.answer(x.endpoint.id);
    await until(() => sender.held(x.endpoint.id) === 1 && sender.requests.filter((r) => r.poolKey === x.endpoint.id).length === 2);
  });

  it('the clock jumps a minute ahead, past its lease, while a delivery is being sent: a wake-up of it is not claimed and sent again here', async () => {
    const { t, endpoint } = await s.endpoint();
    const [id] = await s.due(t);
    sender.hold(endpoint.id);
    const claims = countCalls();
    await started(); // its first sweep sends it
    await until(() => sender.held(endpoint.id) === 1);
    const before = claims.claim;
    s.clock.advance(60_000);
    const other = await s.endpoint();
    const [marker] = await s.due(other.t);
    // The repeated wake-up, then another delivery's: once that one is sent, the first was handled.
    const wake = (delivery: DeliveryId) => s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(delivery));
    await wake(id!);
    await wake(marker!);
    await until(async () => (await s.statusOf(other.t, marker!)) === 'success');
    expect(claims.claim - before).toBe(1); // the other delivery's
    expect(sender.held(endpoint.id)).toBe(1);
    sender.release();
    await until(async () => (await s.statusOf(t, id!)) === 'success');
    expect(sender.requests.filter((r) => r.poolKey === endpoint.id)).toHaveLength(1);
  });

  it('a busy endpoint holds no other endpoint back', async () => {
    const slow = await s.endpoint();
    const fast = await s.endpoint();
    await s.due(slow.t, 6);
    const [id] = await s.due(fast.t);
    sender.hold(slow.endpoint.id);
    await started({ slotsPerEndpoint: 1 });
    await until(async () => (await s.statusOf(fast.t, id!)) === 'success');
    expect(sender.held(slow.endpoint.id)).toBe(1);
  });
});

describe('fairness between tenants: each tenant’s share of the places', () => {
  /** A new tenant of `endpoints` endpoints (a consumer each) whose sends are held, with `each` due deliveries per endpoint, oldest first. */
  async function heldTenant(endpoints: number, each: number): Promise<{ t: Tenant; endpointIds: string[]; ids: DeliveryId[] }> {
    const t = await s.m.f.tenant();
    const endpointIds: string[] = [];
    const ids: DeliveryId[] = [];
    for (let e = 0; e < endpoints; e++) {
      const endpoint = await s.endpointOf(t, `customer-${e}`);
      sender.hold(endpoint.id);
      endpointIds.push(endpoint.id);
      ids.push(...(await s.dueTo(t, `customer-${e}`, each)));
    }
    return { t, endpointIds, ids };
  }
  /** A wake-up for each of `ids`, as intake publishes one for each delivery it writes. */
  const wakeUp = (ids: readonly DeliveryId[]) => Promise.all(ids.map((id) => s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id))));
  const heldOf = (endpointIds: readonly string[]) => endpointIds.reduce((n, id) => n + sender.held(id), 0);
  const overShare = () => s.metric('wirehook_dispatch_over_tenant_share_total');

  it('a tenant with hung receivers holds 3 of 12 places: another’s delivery goes at once; its other 9 wait in the store, then all go', async () => {
    // 12 places, 2 slots an endpoint: a quarter of the places is 3. The first tenant's 6
    // endpoints × 2 slots would take all 12 places, and the other tenant's wake-up would find none.
    await started({ concurrency: 12, slotsPerEndpoint: 2 });
    const slow = await heldTenant(6, 2);
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    await wakeUp([...slow.ids, otherId!]);
    await until(async () => (await s.statusOf(other.t, otherId!)) === 'success');
    await until(async () => (await overShare()) === 9 && (await s.dueAt(s.clock.now(), slow.ids)).length === 9);
    expect(heldOf(slow.endpointIds)).toBe(3);
    // Given back to the store, not parked here: nothing of them waits in memory.
    expect(await s.metric('wirehook_dispatch_waiting_deliveries')).toBe(0);
    // Its sends answering bring the rest back (the sweep timer is an hour away): each sent once.
    sender.release();
    await until(async () => (await Promise.all(slow.ids.map((id) => s.statusOf(slow.t, id)))).every((st) => st === 'success'));
    expect(sender.requests.filter((r) => slow.endpointIds.includes(r.poolKey))).toHaveLength(12);
    expect(sender.requests.filter((r) => r.poolKey === other.endpoint.id)).toHaveLength(1);
  });

  it('of 12 places, a tenant’s 3rd send at once is let in and its 4th goes back to the store, due now', async () => {
    await started({ concurrency: 12, slotsPerEndpoint: 2 });
    // 2 endpoints × 2 slots: the endpoints' slots would let all 4 in.
    const tenant = await heldTenant(2, 2);
    await wakeUp(tenant.ids.slice(0, 3));
    await until(() => heldOf(tenant.endpointIds) === 3);
    expect(await overShare()).toBe(0);
    await wakeUp(tenant.ids.slice(3));
    await until(async () => (await overShare()) === 1);
    await until(async () => (await s.dueAt(s.clock.now(), tenant.ids)).length === 1);
    expect(await s.dueAt(s.clock.now(), tenant.ids)).toEqual(tenant.ids.slice(3));
    expect(heldOf(tenant.endpointIds)).toBe(3);
    // No sweep was cut off (the timer is an hour away): the tenant's sends ending bring it back.
    sender.release();
    await until(async () => (await Promise.all(tenant.ids.map((id) => s.statusOf(tenant.t, id)))).every((st) => st === 'success'));
    expect(sender.requests).toHaveLength(4);
  });

  it('a wake-up naming a tenant that holds its share here is left in the store unclaimed (no claim, no release), then sent as its sends end', async () => {
    await started({ concurrency: 12, slotsPerEndpoint: 2 });
    const tenant = await heldTenant(2, 2);
    const named = (ids: readonly DeliveryId[]) =>
      Promise.all(ids.map((id) => s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id), { headers: dispatchJobHeaders(tenant.t) })));
    await named(tenant.ids.slice(0, 3));
    await until(() => heldOf(tenant.endpointIds) === 3);
    const calls = countCalls();
    await named(tenant.ids.slice(3));
    await until(async () => (await overShare()) === 1);
    expect(calls).toEqual({ claim: 0, release: 0 });
    expect(await s.dueAt(s.clock.now(), tenant.ids)).toEqual(tenant.ids.slice(3));
    sender.release();
    await until(async () => (await Promise.all(tenant.ids.map((id) => s.statusOf(tenant.t, id)))).every((st) => st === 'success'));
    expect(sender.requests).toHaveLength(4);
  });

  it('DISPATCH_PLACES_PER_TENANT sets the share: 5 of 12 places', async () => {
    await started({ concurrency: 12, slotsPerEndpoint: 2, placesPerTenant: 5 });
    const tenant = await heldTenant(3, 2);
    await wakeUp(tenant.ids);
    await until(async () => (await overShare()) === 1 && (await s.dueAt(s.clock.now(), tenant.ids)).length === 1);
    expect(heldOf(tenant.endpointIds)).toBe(5);
  });
});

describe('a store refusing a tenant’s calls for overload (TenantHolds)', () => {
  const holds = () => s.metric('wirehook_dispatch_tenant_holds_total');

  it('holds that tenant’s new work 250 ms while another tenant’s goes at once; the hold’s end sweeps its deliveries', async () => {
    const a = await s.endpoint();
    const b = await s.endpoint();
    await s.due(a.t);
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    let refused = 0;
    s.store.deliveries.complete = async (claim, outcome) => {
      if (claim.tenant.orgId === a.t.orgId && refused++ === 0) throw new UnavailableError('the database did not answer in time', { overloaded: true });
      return complete(claim, outcome);
    };
    const d = await started();
    await until(async () => (await holds()) === 1);
    expect(sender.requests.map((r) => r.poolKey)).toEqual([a.endpoint.id]);
    // Held: a wake-up naming it is left in the store unclaimed, and a sweep lists none of its due deliveries.
    // (The fixtures' sends move the clock a second each: made as of now, and the clock put back.)
    const heldAt = s.clock.now();
    const dueNow = async (t: Tenant) => s.m.only(await s.m.send(t, { consumerExternalId: 'customer-1', createdAt: heldAt }));
    const [next, other] = [await dueNow(a.t), await dueNow(b.t)];
    s.clock.set(heldAt);
    const calls = countCalls();
    await s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(next!), { headers: dispatchJobHeaders(a.t) });
    await s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(other!), { headers: dispatchJobHeaders(b.t) });
    await until(async () => (await s.statusOf(b.t, other!)) === 'success');
    await d.sweep();
    expect(calls.claim).toBe(1); // the other tenant's
    expect(await s.dueAt(s.clock.now(), [next!])).toEqual([next]);
    expect(await s.metric('wirehook_dispatch_over_tenant_share_total')).toBe(0);
    expect(await s.metric('wirehook_dispatch_tenants_held')).toBe(1);
    // The hold over (250 ms), the sweep it asked for sends the held tenant's delivery; the sweep timer is an hour away.
    s.clock.advance(250);
    await until(async () => (await s.statusOf(a.t, next!)) === 'success');
    expect(await holds()).toBe(1);
    expect(await s.metric('wirehook_dispatch_tenants_held')).toBe(0);
    expect(await s.metric('wirehook_dispatch_sweeps_total', { reason: 'put_off' })).toBeGreaterThanOrEqual(1);
  });

  it('a claim refused for overload holds the tenant its wake-up named: its next wake-up unclaimed; the hold’s end sends both', async () => {
    const a = await s.endpoint();
    const [first, second] = await s.due(a.t, 2);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    let refused = 0;
    s.store.deliveries.claimMany = async (ids, now, leaseUntil) => {
      if (refused++ === 0) throw new UnavailableError('the database did not answer in time', { overloaded: true });
      return claimMany(ids, now, leaseUntil);
    };
    await started({ sweepIntervalMs: 3_600_000 });
    const named = (id: DeliveryId) => s.bus.publish(DISPATCH_SUBJECT, encodeDispatchJob(id), { headers: dispatchJobHeaders(a.t) });
    // The start's sweep published both at once: one claim call, refused for both, named by their wake-ups' tenant.
    await until(async () => (await holds()) === 1);
    const calls = countCalls();
    await named(second!);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.claim).toBe(0);
    // No sweep by hand: the one the hold asked for at its end sends both.
    s.clock.advance(250);
    await until(async () => (await s.statusOf(a.t, first!)) === 'success' && (await s.statusOf(a.t, second!)) === 'success');
    expect(await holds()).toBe(1);
  });

  it('a held tenant’s deliveries waiting for their endpoint’s turn are not claimed when the turn comes; the hold’s end sends them', async () => {
    const a = await s.endpoint();
    const [, ...waiting] = await s.due(a.t, 4);
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    let refused = 0;
    s.store.deliveries.complete = async (claim, outcome) => {
      if (refused++ === 0) throw new UnavailableError('the database did not answer in time', { overloaded: true });
      return complete(claim, outcome);
    };
    sender.hold(a.endpoint.id);
    // One slot: the first is sent, the other three wait here for its turn.
    await started({ slotsPerEndpoint: 1 });
    await until(async () => sender.held(a.endpoint.id) === 1 && (await s.metric('wirehook_dispatch_waiting_deliveries')) === 3);
    const calls = countCalls();
    // The first answered, its completion refused for overload: the tenant held before its turn passes on.
    sender.release();
    await until(async () => (await holds()) === 1 && (await s.metric('wirehook_dispatch_waiting_deliveries')) === 0);
    await new Promise((resolve) => setImmediate(resolve));
    // All three forgotten in turn (no claim), left due in the store.
    expect(calls.claim).toBe(0);
    expect(await s.dueAt(s.clock.now(), waiting)).toEqual(waiting);
    s.clock.advance(250);
    // After the hold, each takes the endpoint's one slot in turn: no turn was left counted as being passed on.
    await until(async () => (await Promise.all(waiting.map((id) => s.statusOf(a.t, id)))).every((st) => st === 'success'));
  });

  it('a refusal of another kind (a failover) holds nothing', async () => {
    const a = await s.endpoint();
    await s.due(a.t);
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    let refused = 0;
    s.store.deliveries.complete = async (claim, outcome) => {
      if (refused++ === 0) throw new UnavailableError('the database is failing over');
      return complete(claim, outcome);
    };
    const d = await started();
    await until(async () => (await s.metric('wirehook_dispatch_store_errors_total', { operation: 'complete' })) === 1);
    const [next] = await s.due(a.t);
    await d.sweep();
    await until(async () => (await s.statusOf(a.t, next!)) === 'success');
    expect(await holds()).toBe(0);
  });
});

/** Counts the claims (a claim call, or each id of a claimMany call) and the releases on deliveries from now on. */
function countCalls(): { claim: number; release: number } {
  const calls = { claim: 0, release: 0 };
  const deliveries = s.store.deliveries;
  const [claim, claimMany, release] = [deliveries.claim.bind(deliveries), deliveries.claimMany!.bind(deliveries), deliveries.release.bind(deliveries)];
  deliveries.claim = (...args) => {
    calls.claim++;
    return claim(...args);
  };
  deliveries.claimMany = (ids, ...rest) => {
    calls.claim += ids.length;
    return claimMany(ids, ...rest);
  };
  deliveries.release = (...args) => {
    calls.release++;
    return release(...args);
  };
  return calls;
}

describe('the hand-off from intake (take and room)', () => {
  it('room is the free places and a lease from now; none once stopped', async () => {
    const d = await started({ concurrency: 3 });
    expect(d.room(1_000)).toEqual({ max: 3, leaseUntil: 1_000 + LEASE_MS });
    await d.stop();
    expect(d.room(1_000).max).toBe(0);
  });

  /**
   * `count` due deliveries of one endpoint, claimed as intake claims them, handed to a started
   * dispatcher of `concurrency` places (4 slots) with every send held; resolves once its places are all sending.
   */
  async function handedOver(count: number, concurrency: number) {
    const { t } = await s.endpoint();
    const ids = await s.due(t, count);
    sender.hold();
    const jobs = await Promise.all(ids.map((id) => s.claim(id)));
    const d = await started({ concurrency, slotsPerEndpoint: 4 });
    const calls = countCalls();
    d.take(jobs);
    await until(() => sender.held() === concurrency);
    return { t, ids, d, calls };
  }
  const allDelivered = (t: Parameters<DispatchScene['statusOf']>[0], ids: readonly DeliveryId[]) =>
    until(async () => (await Promise.all(ids.map((id) => s.statusOf(t, id)))).every((st) => st === 'success'));

  it('jobs beyond the free places wait for the next ones and are sent once, with no claim or release of their own', async () => {
    const { t, ids, d, calls } = await handedOver(4, 2);
    expect(d.room(s.clock.now()).max).toBe(0);
    // The two waiting keep their lease: nothing is due in the store for a sweep to find.
    expect(await s.dueAt(s.clock.now(), ids)).toEqual([]);
    sender.release();
    await allDelivered(t, ids);
    expect(sender.requests).toHaveLength(4);
    expect(calls).toEqual({ claim: 0, release: 0 });
  });

  it('beyond as many waiting as it has places, hand-offs are given back due now, and the sweeper sends them once', async () => {
    // 1 place: one sent, one waits for it, two go back to the store.
    const { t, ids } = await handedOver(4, 1);
    await until(async () => (await s.dueAt(s.clock.now(), ids)).length === 2);
    expect(await s.dueAt(s.clock.now(), ids)).toEqual(ids.slice(2));
    sender.release();
    await allDelivered(t, ids);
    expect(sender.requests).toHaveLength(4);
  });

  it('jobs still waiting for a place when it stops are given back, due now', async () => {
    const { ids, d } = await handedOver(3, 1);
    const stopping = d.stop();
    sender.release();
    await stopping;
    // The one sent is done; the one that waited and the one beyond are due again, not leased.
    expect(await s.dueAt(s.clock.now(), ids)).toEqual(ids.slice(1));
    expect(sender.requests).toHaveLength(1);
  });

  it('a job handed over more than 5 s after its message was written is given back, not sent (5 s: sent)', async () => {
    const { t } = await s.endpoint();
    const [late, inTime] = await s.due(t, 2);
    // The two messages were written a second apart: the later one is exactly 5 s old.
    s.clock.advance(5_000);
    const jobs = [await s.claim(late!), await s.claim(inTime!)];
    const d = await started({ concurrency: 10 });
    sender.hold();
    const calls = countCalls();
    d.take(jobs);
    // The one in time sent as handed over; the late one given back (a release), then — its
    // release written, 9 of 10 places free — swept and claimed afresh at once, not at the tick.
    await until(() => sender.held() === 2);
    expect(calls).toEqual({ claim: 1, release: 1 });
    sender.release();
    await until(async () => (await s.statusOf(t, late!)) === 'success' && (await s.statusOf(t, inTime!)) === 'success');
  });
});

describe('faults', () => {
  it('a secret this key ring does not open: no attempt, the delivery put off a minute', async () => {
    const { t } = await s.endpoint({}, new SecretBox(Buffer.alloc(32, 9)));
    const [id] = await s.due(t);
    const at = s.clock.now();
    await started();
    await until(() => s.metric('wirehook_dispatch_unseal_errors_total').then((n) => n === 1));
    // Claimed, its lease (17 s) would have run out by then: released, it is due a minute on.
    await until(async () => (await s.dueAt(at + 59_999, [id!])).length === 0);
    expect(await s.dueAt(at + 60_000, [id!])).toEqual([id]);
    expect(sender.requests).toHaveLength(0);
    expect((await s.store.deliveries.get(t, id!))?.delivery.attemptCount).toBe(0);
  });

  it('a completion that cannot be written is counted; the delivery keeps its lease until it runs out', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    let failures = 1;
    s.store.deliveries.complete = (...args) => (failures-- > 0 ? Promise.reject(new Error('database is locked')) : complete(...args));
    const d = await started();
    await until(() => s.metric('wirehook_dispatch_store_errors_total', { operation: 'complete' }).then((n) => n === 1));
    expect(await s.statusOf(t, id!)).toBe('pending');
    expect(await s.dueAt(s.clock.now(), [id!])).toEqual([]);
    s.clock.advance(LEASE_MS);
    await d.sweep();
    await until(async () => (await s.statusOf(t, id!)) === 'success');
    expect(sender.requests).toHaveLength(2);
  });

  it('a claim that fails is counted and the delivery left for the sweeper', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const claimMany = s.store.deliveries.claimMany!.bind(s.store.deliveries);
    let failures = 1;
    s.store.deliveries.claimMany = (...args) => (failures-- > 0 ? Promise.reject(new Error('database is locked')) : claimMany(...args));
    const d = await started();
    await until(() => s.metric('wirehook_dispatch_store_errors_total', { operation: 'claim' }).then((n) => n === 1));
    expect(sender.requests).toHaveLength(0);
    // A lease on, the sweep publishes it again whatever this dispatcher noted about it.
    s.clock.advance(LEASE_MS);
    await d.sweep();
    await until(async () => (await s.statusOf(t, id!)) === 'success');
  });
});

describe('stop', () => {
  it('waits for the sends in flight', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    sender.hold();
    const d = await started();
    await until(() => sender.held() === 1);
    const events: string[] = [];
    const stopping = d.stop().then(() => events.push('stopped'));
    // A store round trip (I/O: whatever stop() does without the send has run by then), then the answer.
    expect(await s.statusOf(t, id!)).toBe('pending');
    events.push('answered');
    sender.release();
    await stopping;
    expect(events).toEqual(['answered', 'stopped']);
    expect(await s.statusOf(t, id!)).toBe('success');
  });

  it('does not wait for a send whose OAuth token is still coming: it is given back, due now, with no attempt', async () => {
    const { t, endpoint } = await s.endpoint();
    await s.withOAuth(t, endpoint);
    const [id] = await s.due(t);
    let answerToken: ((result: SendResult) => void) | undefined;
    // A token endpoint whose request has not answered when the stop comes: the send gives way at once, and the
    // stop ends once that request has (its token kept for the other dispatchers), not after a send.
    sender.fetchToken = () => new Promise((resolve) => (answerToken = resolve));
    const d = await started();
    await d.sweep();
    await until(() => answerToken !== undefined);
    const events: string[] = [];
    const stopping = d.stop().then(() => events.push('stopped'));
    // The delivery is given back while the stop waits for the token request.
    await until(async () => (await s.dueAt(s.clock.now(), [id!])).length === 1);
    events.push('token answered');
    answerToken!(tokenResult('token-late', 3_600));
    await stopping;
    expect(events).toEqual(['token answered', 'stopped']);
    expect(sender.requests).toHaveLength(0);
    expect(await s.statusOf(t, id!)).toBe('pending');
    expect((await s.store.deliveries.get(t, id!))?.delivery.attemptCount).toBe(0);
    expect(await s.dueAt(s.clock.now(), [id!])).toEqual([id]);
  });
});
