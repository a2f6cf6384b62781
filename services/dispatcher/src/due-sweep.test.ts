// DueSweep against a real (SQLite) store and a bus that records what is published: each due
// delivery once per lease, never more than the free places, none for an endpoint without room,
// and the sweeps that follow falling behind, places freed (half, or an eighth), or a queue drained.
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { decodeDispatchJob, dispatchJobTenant, type Bus } from '@wirehook/bus';
import type { DeliveryId, Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { claimRef } from '@wirehook/store';
import { Counter, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptPlaces } from './attempt-places.ts';
import { DispatchScene, until } from './testing/dispatch-scene.ts';
import { DueSweep, REFILL_SHARE_GROUPED, refillAt } from './due-sweep.ts';
import { SendGate } from './send-gate.ts';
import { TenantHolds } from './tenant-holds.ts';
import { TenantShares } from './tenant-shares.ts';
import { WakeupLedger } from './wakeup-ledger.ts';

const LEASE_MS = 17_000;
let s: DispatchScene;
let published: DeliveryId[];
/** The tenant each published job's header names, in the same order. */
let tenantsNamed: (Tenant | undefined)[];
let failPublishes: number;
let sweeps: DueSweep[];

const bus: Pick<Bus, 'publish'> = {
  async publish(_subject, data, options) {
    if (failPublishes-- > 0) throw new Error('bus unavailable');
    published.push(decodeDispatchJob(data));
    tenantsNamed.push(options?.headers === undefined ? undefined : dispatchJobTenant(options.headers));
  },
};

beforeEach(() => {
  s = new DispatchScene();
  published = [];
  tenantsNamed = [];
  failPublishes = 0;
  sweeps = [];
});
afterEach(async () => {
  for (const sweep of sweeps) await sweep.stop();
  await s.close();
});

function sweeper(
  options: { places?: number; slots?: number; placesPerTenant?: number; batch?: number; refillShare?: number; holds?: TenantHolds; intervalMs?: number } = {},
) {
  const places = new AttemptPlaces(options.places ?? 10);
  // Unless a test bounds it, a tenant may use every place.
  const shares = new TenantShares(options.placesPerTenant ?? places.size, options.holds);
  const ledger = new WakeupLedger(LEASE_MS);
  const gate = new SendGate(options.slots ?? 2);
  const counted = new Counter({ name: 'sweeps_total', help: 'sweeps', labelNames: ['reason'], registers: [new Registry()] });
  const sweep = new DueSweep({
    store: s.store,
    bus,
    clock: s.clock,
    logger: silentLogger(),
    ledger,
    places,
    gate,
    shares,
    intervalMs: options.intervalMs ?? 3_600_000,
    batch: options.batch ?? 100,
    refillShare: options.refillShare ?? 2,
    sweeps: counted,
  });
  sweeps.push(sweep);
  /** Sweeps run so far, by reason (those with none left out). */
  const reasons = async () => Object.fromEntries((await counted.get()).values.filter((v) => v.value > 0).map((v) => [String(v.labels['reason']), v.value]));
  return { sweep, places, ledger, gate, shares, reasons };
}

describe('DueSweep', () => {
  it('publishes each due delivery once, oldest first; again only a lease after it went on its way', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 2);
    const { sweep } = sweeper();
    await sweep.sweep();
    expect(published).toEqual(ids);
    s.clock.advance(LEASE_MS - 1);
    await sweep.sweep();
    expect(published).toHaveLength(2);
    s.clock.advance(1);
    await sweep.sweep();
    expect(published).toEqual([...ids, ...ids]);
  });

  it('publishes no more than the free places, nor the batch', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 5);
    const few = sweeper({ places: 3 });
    few.places.take();
    await few.sweep.sweep();
    expect(published).toEqual(ids.slice(0, 2));
    published = [];
    await sweeper({ batch: 1 }).sweep.sweep();
    expect(published).toEqual(ids.slice(0, 1));
  });

  it('fetches at most what the gate can hold of one endpoint, and publishes none for an endpoint without room', async () => {
    const busy = await s.endpoint();
    const other = await s.endpoint();
    const busyIds = await s.due(busy.t, 12);
    const [otherId] = await s.due(other.t);
    const { sweep, gate } = sweeper({ places: 20, slots: 2 });
    await sweep.sweep();
    expect(published).toEqual([...busyIds.slice(0, 10), otherId]); // 2 slots + 8 parked
    // The busy endpoint's slots and parking taken: its wake-ups would only be dropped.
    published = [];
    s.clock.advance(LEASE_MS);
    for (let i = 0; i < 2; i++) gate.tryEnter({ id: busyIds[i]!, endpointId: busy.endpoint.id }, false);
    for (let i = 2; i < 10; i++) gate.wait({ id: busyIds[i]!, endpointId: busy.endpoint.id }, ROOT_CONTEXT);
    await sweep.sweep();
    expect(published).toEqual([otherId]);
  });

  it('publishes no more for an endpoint than its free slots and parking: 1 of 2 slots and 7 of 8 parked, 2 of its 10 due', async () => {
    const { t, endpoint } = await s.endpoint();
    const ids = await s.due(t, 10);
    const { sweep, gate } = sweeper({ places: 20, slots: 2 });
    expect(gate.tryEnter({ id: 'dlv_sending' as DeliveryId, endpointId: endpoint.id }, false)).toBe(true);
    for (let i = 0; i < 7; i++) expect(gate.wait({ id: `dlv_parked_${i}` as DeliveryId, endpointId: endpoint.id }, ROOT_CONTEXT)).toBe(true);
    await sweep.sweep();
    expect(published).toEqual(ids.slice(0, 2));
  });

  it('an endpoint refused for want of room in a page it did not fill is marked: its queue drained to half asks for a sweep', async () => {
    const { t, endpoint } = await s.endpoint();
    await s.due(t, 9); // under its share of a page (2 slots + 8 parked = 10): no `filled` mark
    const { sweep, gate } = sweeper({ places: 20, slots: 2 });
    const sending = { id: 'dlv_sending' as DeliveryId, endpointId: endpoint.id };
    gate.tryEnter(sending, false);
    for (let i = 0; i < 7; i++) gate.wait({ id: `dlv_parked_${i}` as DeliveryId, endpointId: endpoint.id }, ROOT_CONTEXT);
    await sweep.sweep();
    expect(published).toHaveLength(2); // 1 slot and 1 parking place free: 7 left in the store
    const turns = [gate.ended(sending), gate.passOn(endpoint.id), gate.passOn(endpoint.id)];
    expect(turns.map((turn) => turn.refill)).toEqual([false, false, true]); // 4 of 8 parked: half
  });

  it('a publish that fails: logged, the delivery not on its way, published by the next sweep', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const { sweep, ledger } = sweeper();
    failPublishes = 1;
    await sweep.sweep();
    expect(ledger.isOnItsWay(id!, s.clock.now())).toBe(false);
    await sweep.sweep();
    expect(published).toEqual([id]);
  });

  it('behind (a sweep cut off), it sweeps again as a place frees at half load, not before', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 6);
    const { sweep, places, ledger } = sweeper({ places: 4 });
    await sweep.sweep(); // 4 published: cut off at the free places
    expect(published).toEqual(ids.slice(0, 4));
    for (const id of ids.slice(0, 4)) {
      await s.claim(id); // the 4 being sent: leased, in their places
      places.take();
      ledger.sending(id);
    }
    const sweeps = vi.spyOn(sweep, 'sweep');
    places.give();
    sweep.placeFreed(); // 3 of 4 taken
    places.give();
    sweep.placeFreed(); // 2 of 4: half
    await until(() => published.length === 6);
    expect(published.slice(4)).toEqual(ids.slice(4));
    // Once that sweep has ended: it was the only one (the place freed at 3 of 4 swept nothing).
    expect(sweeps).toHaveBeenCalledTimes(1);
  });

  /**
   * Every one of `places` places taken by a send of one endpoint that has 2 more due (behind): the
   * places freed one by one, no sweep until `at` are free, and then one, which publishes the 2.
   */
  async function refillsAt(options: { places: number; slots: number; refillShare?: number }, at: number): Promise<void> {
    const { t } = await s.endpoint();
    const ids = await s.due(t, options.places + 2);
    const { sweep, places, ledger } = sweeper({ ...options, batch: 1_000 });
    await sweep.sweep();
    expect(published).toEqual(ids.slice(0, options.places));
    for (const id of ids.slice(0, options.places)) {
      await s.claim(id);
      places.take();
      ledger.sending(id);
    }
    const sweeps = vi.spyOn(sweep, 'sweep');
    for (let free = 1; free < at; free++) {
      places.give();
      sweep.placeFreed();
    }
    await Promise.resolve();
    expect(sweeps).not.toHaveBeenCalled();
    places.give();
    sweep.placeFreed();
    await until(() => published.length === options.places + 2);
    expect(published.slice(options.places)).toEqual(ids.slice(options.places));
    expect(sweeps).toHaveBeenCalledTimes(1);
  }

  // 320 places: an endpoint holds 100 + 400 parked, so the page is not cut at it.
  it('a store that groups completions: behind, it sweeps again once an eighth of the places are free (at least 32), not before', () =>
    refillsAt({ places: 320, slots: 100, refillShare: REFILL_SHARE_GROUPED }, 40));

  it('a store that answers each write alone: with 320 places, half of them free before a sweep follows, not an eighth', () =>
    refillsAt({ places: 320, slots: 100 }, 160));

  it('a store that groups completions, with few places: half of them, not an eighth, before a sweep follows', () =>
    refillsAt({ places: 16, slots: 8, refillShare: REFILL_SHARE_GROUPED }, 8));

  it('what must be free before a sweep follows: a share of the places, at least 32, or half of fewer', () => {
    const at = (places: number) => [refillAt(places, 2), refillAt(places, REFILL_SHARE_GROUPED)];
    expect(at(512)).toEqual([256, 64]);
    expect(at(320)).toEqual([160, 40]);
    expect(at(256)).toEqual([128, 32]);
    // 64 places or fewer: half, whatever the share (an eighth would sweep at nearly every finished send).
    expect(at(64)).toEqual([32, 32]);
    expect(at(9)).toEqual([5, 5]);
    expect(at(8)).toEqual([4, 4]);
    expect(at(7)).toEqual([4, 4]);
    expect(at(2)).toEqual([1, 1]);
    expect(at(1)).toEqual([1, 1]);
  });

  it('an endpoint that filled its share of the page asks for a sweep once its queue is half drained, not at every freed place', async () => {
    const { t, endpoint } = await s.endpoint();
    const ids = await s.due(t, 14); // one endpoint: a share is 2 slots + 8 parked
    const { sweep, places, gate } = sweeper({ places: 20, slots: 2 });
    await sweep.sweep();
    expect(published).toEqual(ids.slice(0, 10));
    const entry = (i: number) => ({ id: ids[i]!, endpointId: endpoint.id });
    for (let i = 0; i < 2; i++) expect(gate.tryEnter(entry(i), false)).toBe(true);
    for (let i = 2; i < 10; i++) expect(gate.wait(entry(i), ROOT_CONTEXT)).toBe(true);
    places.take();
    places.give();
    const sweeps = vi.spyOn(sweep, 'sweep');
    sweep.placeFreed(); // not behind: a freed place alone sweeps nothing
    sweep.refill(); // what a half-drained queue asks for: one sweep, ended before the next call returns
    await sweep.sweep();
    expect(sweeps).toHaveBeenCalledTimes(2); // the refill's and ours, none of the freed place
    expect(published).toHaveLength(10); // the endpoint's share is still full
    const refills: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      refills.push(gate.ended(entry(i)).refill);
      gate.turnSettled(endpoint.id);
    }
    // 8 parked: the fourth turn leaves 4, half of the parking — the one that asks.
    expect(refills).toEqual([false, false, false, true]);
  });

  it('a sweep that was not cut off is not behind: a freed place sweeps nothing', async () => {
    const { t } = await s.endpoint();
    await s.due(t, 2);
    const { sweep, places } = sweeper({ places: 4 });
    await sweep.sweep();
    await s.due(t, 1); // written meanwhile; found by the next tick
    places.take();
    places.give();
    const sweeps = vi.spyOn(sweep, 'sweep');
    sweep.placeFreed();
    await new Promise(setImmediate);
    expect(sweeps).not.toHaveBeenCalled(); // not behind: the freed place asks for nothing
    sweep.fellBehind(); // with 4 of 4 places free, it sweeps itself
    await until(() => published.length === 3);
    expect(sweeps).toHaveBeenCalledTimes(1);
  });

  it('more due while a sweep reads the store (a release written after its read): still behind, the next freed place sweeps for it', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const job = await s.claim(id!); // leased: the sweep's read does not list it
    const { sweep, places } = sweeper({ places: 4 });
    for (let i = 0; i < 3; i++) places.take(); // 1 of 4 free: under half, so behind sweeps nothing yet
    const due = s.store.deliveries.due.bind(s.store.deliveries);
    vi.spyOn(s.store.deliveries, 'due').mockImplementationOnce(async (...args) => {
      const listed = await due(...args);
      // After the read, before the sweep has its answer: the lease given back, and said so.
      await s.store.deliveries.release(claimRef(job), s.clock.now());
      sweep.fellBehind();
      return listed;
    });
    await sweep.sweep();
    expect(published).toEqual([]);
    places.give(); // 2 of 4 free: half
    sweep.placeFreed();
    await until(() => published.length === 1);
    expect(published).toEqual([id]);
  });

  it('a page not cut but published only up to the room: behind, the next freed place sweeps for what it left', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 6);
    const { sweep, places, ledger } = sweeper({ places: 4 });
    await sweep.sweep(); // 4 published
    expect(published).toEqual(ids.slice(0, 4));
    // 2 of them claimed (leased: no page lists them), their wake-ups not yet told sending;
    // 3 of the 4 places taken.
    for (const id of ids.slice(0, 2)) await s.claim(id);
    for (let i = 0; i < 3; i++) places.take();
    // Room 1, 4 on their way: a page of 5 lists 4 (2 on their way, 2 new), not cut; 1 published.
    await sweep.sweep();
    expect(ledger.listed).toBe(5);
    expect(published).toEqual(ids.slice(0, 5));
    places.give(); // 2 of 4 free: half
    sweep.placeFreed();
    await until(() => published.length === 6);
    expect(published[5]).toBe(ids[5]);
  });

  it('refill sweeps at once; after stop, nothing is swept or published', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const { sweep } = sweeper();
    sweep.refill();
    await until(() => published.length === 1);
    expect(published).toEqual([id]);
    await sweep.stop();
    s.clock.advance(LEASE_MS);
    sweep.refill();
    await sweep.sweep();
    expect(published).toHaveLength(1);
  });

  it('one sweep at a time: a call during one joins it', async () => {
    const { t } = await s.endpoint();
    await s.due(t, 3);
    const { sweep, reasons } = sweeper();
    const [first, second] = [sweep.sweep(), sweep.sweep()];
    expect(second).toBe(first);
    await first;
    expect(published).toHaveLength(3);
    // Joined, not counted: one sweep ran.
    expect(await reasons()).toEqual({ manual: 1 });
  });

  it('counts each sweep by what asked: start, places freed while behind, a refill, a put-off time; one asked during a sweep by the first', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 3);
    const { sweep, places, ledger, reasons } = sweeper({ places: 2 });
    await sweep.start(); // 2 of 3 published: cut off at the free places, behind
    expect(await reasons()).toEqual({ start: 1 });
    for (const id of ids.slice(0, 2)) {
      await s.claim(id);
      places.take();
      ledger.sending(id);
    }
    places.give();
    sweep.placeFreed(); // 1 of 2 free: half
    await until(() => published.length === 3);
    await until(async () => expect(await reasons()).toEqual({ start: 1, behind: 1 }));
    sweep.refill();
    await until(async () => expect(await reasons()).toEqual({ start: 1, behind: 1, refill: 1 }));
    sweep.wakeAt(s.clock.now());
    await until(async () => expect(await reasons()).toEqual({ start: 1, behind: 1, refill: 1, put_off: 1 }));
    // Asked for twice while one runs: one more follows it, counted once, for the first reason.
    const running = sweep.sweep();
    sweep.refill();
    sweep.fellBehind(); // a place is free: it would sweep for 'behind'
    await running;
    await until(async () => expect(await reasons()).toEqual({ start: 1, behind: 1, refill: 2, put_off: 1, manual: 1 }));
  });

  it('counts a sweep only when it reads the store: with no place free, none; the timer’s as interval', async () => {
    const { t } = await s.endpoint();
    await s.due(t);
    const { sweep, places, reasons } = sweeper({ places: 1 });
    places.take();
    await sweep.sweep();
    sweep.refill();
    await Promise.resolve();
    await sweep.sweep();
    expect(await reasons()).toEqual({});
    expect(published).toEqual([]);
    places.give();
    const timed = sweeper({ intervalMs: 5 });
    await timed.sweep.start();
    await until(async () => ((await timed.reasons())['interval'] ?? 0) >= 1);
    expect((await timed.reasons())['start']).toBe(1);
  });

  it('publishes no more of a tenant’s due deliveries than its share has room for (1 of 3 taken: 2), and the other tenant’s', async () => {
    const busy = await s.endpoint();
    const busyIds = await s.due(busy.t, 5);
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    const { sweep, shares } = sweeper({ places: 10, slots: 4, placesPerTenant: 3 });
    shares.tryTake(busy.t);
    await sweep.sweep();
    expect(published).toEqual([...busyIds.slice(0, 2), otherId]);
    // Each names its tenant: a dispatcher whose share of it is taken leaves it unclaimed.
    expect(tenantsNamed).toEqual([busy.t, busy.t, other.t]);
  });

  it('lists none of a tenant held for a store overload, the other tenant’s at once; a sweep when the hold ends publishes its', async () => {
    const held = await s.endpoint();
    const heldIds = await s.due(held.t, 2);
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    const holds = new TenantHolds(s.clock);
    const { sweep } = sweeper({ holds });
    holds.overloaded(held.t, s.clock.now());
    await sweep.sweep();
    expect(published).toEqual([otherId]);
    // No other sweep asked for (the timer is an hour away): the one at the hold's end, 250 ms on.
    s.clock.advance(250);
    await until(() => expect(published).toEqual([otherId, ...heldIds]));
  });

  it('with no place free while a tenant is held, a sweep still asks for one at the hold’s end', async () => {
    const held = await s.endpoint();
    await s.due(held.t);
    const holds = new TenantHolds(s.clock);
    const { sweep, places } = sweeper({ places: 1, holds });
    places.take();
    const wakes = vi.spyOn(sweep, 'wakeAt');
    holds.overloaded(held.t, s.clock.now());
    await sweep.sweep();
    expect(wakes.mock.calls).toEqual([[s.clock.now() + 250]]);
    expect(published).toEqual([]);
  });

  it('a page filled by a tenant at its share: one more page of each endpoint’s oldest finds another tenant’s delivery behind it', async () => {
    const busy = await s.endpoint();
    await s.due(busy.t, 6);
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    // 4 free places: a page of 4, all of them the busy tenant's older deliveries.
    const { sweep, shares } = sweeper({ places: 4, slots: 4, placesPerTenant: 2 });
    shares.tryTake(busy.t);
    shares.tryTake(busy.t);
    await sweep.sweep();
    expect(published).toEqual([otherId]);
  });

  it('a sweep asked for as a send ends, before its place is given back (the runner’s order): it reads the freed place', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t);
    const { sweep, places } = sweeper({ places: 16 });
    for (let i = 0; i < 16; i++) places.take();
    // A send's end: its tenant's place back (a refill), then its own place, then placeFreed (1 of 16 free, under an eighth: no sweep of its own).
    sweep.refill();
    places.give();
    sweep.placeFreed();
    await until(() => published.length === 1);
    expect(published).toEqual(ids);
  });

  it('the second page: a tenant whose oldest is already on its way still has its other endpoints’ deliveries found', async () => {
    const full = await s.endpoint();
    await s.due(full.t, 6);
    const g = await s.endpoint();
    const [parked] = await s.due(g.t);
    await s.endpointOf(g.t, 'customer-2');
    const [retry] = await s.dueTo(g.t, 'customer-2');
    const { sweep, shares, places, ledger } = sweeper({ places: 8, slots: 4, placesPerTenant: 4 });
    for (let i = 0; i < 4; i++) {
      shares.tryTake(full.t);
      places.take();
    }
    ledger.note(parked!, s.clock.now());
    await sweep.sweep();
    expect(published).toEqual([retry]);
  });

  it('the second page: a tenant with room behind a full one has each of its endpoints’ oldest found, not one', async () => {
    const full = await s.endpoint();
    await s.due(full.t, 6);
    const g = await s.endpoint();
    const gIds = await s.due(g.t);
    for (const customer of ['customer-2', 'customer-3']) {
      await s.endpointOf(g.t, customer);
      gIds.push(...(await s.dueTo(g.t, customer)));
    }
    const { sweep, shares, places } = sweeper({ places: 8, slots: 4, placesPerTenant: 4 });
    for (let i = 0; i < 4; i++) {
      shares.tryTake(full.t);
      places.take();
    }
    await sweep.sweep();
    expect(published).toEqual(gIds);
  });

  it('a tenant that filled its part of the page is marked: its sends ending down to half its share ask for the next sweep', async () => {
    const busy = await s.endpoint();
    for (let i = 2; i <= 5; i++) {
      await s.endpointOf(busy.t, `customer-${i}`);
      await s.dueTo(busy.t, `customer-${i}`);
    }
    const { sweep, shares } = sweeper({ places: 10, slots: 4, placesPerTenant: 2 });
    await sweep.sweep();
    expect(published).toHaveLength(2);
    // Its two sends: the first to end leaves it at half its share, and asks for a sweep for the other two.
    shares.tryTake(busy.t);
    shares.tryTake(busy.t);
    expect(shares.give(busy.t)).toBe(true);
  });

  it('a tenant’s deliveries already on their way (parked, published) do not use up its part of the page', async () => {
    const { t } = await s.endpoint();
    const ids: DeliveryId[] = [];
    for (let i = 2; i <= 5; i++) {
      await s.endpointOf(t, `customer-${i}`);
      ids.push(...(await s.dueTo(t, `customer-${i}`)));
    }
    const { sweep, ledger } = sweeper({ places: 10, slots: 4, placesPerTenant: 2 });
    ledger.note(ids[0]!, s.clock.now());
    ledger.note(ids[1]!, s.clock.now());
    await sweep.sweep();
    expect(published).toEqual(ids.slice(2));
  });

  it('a sweep asked for while one runs (a queue drained, a place freed): one more follows it, with the place the first read too early', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t);
    const { sweep, places } = sweeper({ places: 1 });
    places.take();
    const first = sweep.sweep(); // reads no free place
    // As a send ends: its tenant's place given back asks for a sweep, then its own place is freed.
    sweep.refill();
    places.give();
    await first;
    await until(() => published.length === 1);
    expect(published).toEqual(ids);
  });

  it('a tenant’s backlog over more endpoints than a page holds: the page lists its share (2), then another tenant’s delivery behind it', async () => {
    const busy = await s.endpoint();
    const busyIds: DeliveryId[] = [];
    // Six endpoints of one tenant, a due delivery each (a page of 4 free places holds four of them).
    for (let i = 1; i <= 6; i++) {
      await s.endpointOf(busy.t, `customer-${i + 1}`);
      busyIds.push(...(await s.dueTo(busy.t, `customer-${i + 1}`)));
    }
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    const { sweep, gate } = sweeper({ places: 4, slots: 4, placesPerTenant: 2 });
    const due = vi.spyOn(s.store.deliveries, 'due');
    await sweep.sweep();
    expect(published).toEqual([...busyIds.slice(0, 2), otherId]);
    // In one page: the store lists no more of the tenant's than its share.
    expect(due.mock.calls).toEqual([[s.clock.now(), 4, gate.perEndpoint, 2, []]]);
  });

  it('a full tenant is listed none of (skipped); one near its share fills the page: one more page of each endpoint’s oldest finds another tenant', async () => {
    // One tenant holding its whole share (2) and one holding 1 of 2, with 3 due each, older than
    // a third's; 2 places are free: the first page (2) is the second tenant's, one of which may go.
    const full = await s.endpoint();
    const fullIds = await s.due(full.t, 3);
    const half = await s.endpoint();
    const halfIds = await s.due(half.t, 3);
    const other = await s.endpoint();
    const [otherId] = await s.due(other.t);
    const { sweep, shares, places, gate } = sweeper({ places: 5, slots: 4, placesPerTenant: 2 });
    for (const t of [full.t, full.t, half.t]) {
      shares.tryTake(t);
      places.take();
    }
    expect(shares.fullTenants()).toEqual([full.t]);
    const due = vi.spyOn(s.store.deliveries, 'due');
    await sweep.sweep();
    expect(published).toEqual([halfIds[0], otherId]);
    // The full tenant's due deliveries, left unlisted: its first send to end (down to half its share) asks for a sweep.
    expect(shares.give(full.t)).toBe(true);
    // Both skip the full tenant; the second lists each endpoint's oldest.
    expect(due.mock.calls.map((call) => call.slice(1))).toEqual([
      [2, gate.perEndpoint, 2, [full.t]],
      [2, 1, 2, [full.t]],
    ]);
    expect(fullIds).toHaveLength(3);
  });
});
