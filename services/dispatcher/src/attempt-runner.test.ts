// AttemptRunner with the real units around it (store, gate, leases, sender, recorder) and a
// sweep that only records what it is told: the order of one attempt's steps, and what each
// step that comes to nothing leaves behind.
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import type { DeliveryId } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { claimRef, type DeliveryJob } from '@wirehook/store';
import { startTracing, type Tracing } from '@wirehook/platform/tracing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AttemptPlaces } from './attempt-places.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { AttemptRunner } from './attempt-runner.ts';
import { DeliveryLeases } from './delivery-leases.ts';
import { EndpointThrottle } from './endpoint-throttle.ts';
import { createThroughputMetrics } from './throughput-metrics.ts';
import { MemoryKv } from '@wirehook/kv';
import { Registry } from 'prom-client';
import { DispatchScene, FakeSender, until } from './testing/dispatch-scene.ts';
import { SendGate } from './send-gate.ts';
import { TenantShares } from './tenant-shares.ts';
import { WakeupLedger } from './wakeup-ledger.ts';
import { WebhookSender } from './webhook-sender.ts';
import { TransformRunner } from '@wirehook/transform';

/** Threads start at a first run: the tests without a transformation start none. */
const transforms = new TransformRunner();

const LEASE_MS = 17_000;
const WAKE_UP = createContextKey('wake-up');
let tracing: Tracing;
let s: DispatchScene;
let sender: FakeSender;

// The AsyncLocalStorage context of every service, so a test can see which trace a send ran in.
beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'attempt-runner-test', instrumentLibraries: false });
});
afterAll(() => tracing.stop());
beforeEach(() => {
  s = new DispatchScene();
  sender = new FakeSender();
});
afterEach(async () => {
  sender.release();
  await s.close();
});

function build(
  options: {
    places?: number;
    slots?: number;
    placesPerTenant?: number;
    heldOverPayloadBytes?: number;
    recordingPayloadBytes?: number;
    completionsWithoutPlace?: boolean;
    hold?: (job: DeliveryJob, until: number) => Promise<void>;
  } = {},
) {
  const { store, clock, metrics } = s;
  const logger = silentLogger();
  const places = new AttemptPlaces(options.places ?? 10);
  // Unless a test bounds it, a tenant may use every place.
  const shares = new TenantShares(options.placesPerTenant ?? places.size);
  const ledger = new WakeupLedger(LEASE_MS);
  const throttle = new EndpointThrottle({
    kv: new MemoryKv({ clock }),
    clock,
    logger,
    metrics: createThroughputMetrics(new Registry()),
    slots: options.slots ?? 1,
  });
  const gate = new SendGate(options.slots ?? 1, (endpointId) => throttle.capOf(endpointId));
  const told = { fellBehind: 0, placeFreed: 0, refill: 0, wakeAt: [] as number[] };
  const due = {
    fellBehind: () => told.fellBehind++,
    placeFreed: () => told.placeFreed++,
    refill: () => told.refill++,
    wakeAt: (at: number) => told.wakeAt.push(at),
  };
  const leases = new DeliveryLeases({ store, clock, logger, metrics, leaseMs: LEASE_MS });
  const webhooks = new WebhookSender({
    sender,
    relay: sender,
    secretBox: s.box,
    leases,
    clock,
    logger,
    metrics,
    kv: s.kv,
    timeoutMs: 1_000,
    transforms,
    store: s.store,
  });
  const recorder = new AttemptRecorder({ leases, clock, logger, metrics, ...(options.hold === undefined ? {} : { hold: options.hold }) });
  const runner = new AttemptRunner({
    clock,
    logger,
    metrics,
    places,
    shares,
    ledger,
    due,
    leases,
    gate,
    throttle,
    webhooks,
    recorder,
    ...(options.heldOverPayloadBytes === undefined ? {} : { heldOverPayloadBytes: options.heldOverPayloadBytes }),
    ...(options.recordingPayloadBytes === undefined ? {} : { recordingPayloadBytes: options.recordingPayloadBytes }),
    // As for SQLite's store (groupsWrites), unless a test says otherwise.
    completionsWithoutPlace: options.completionsWithoutPlace ?? true,
  });
  return { runner, places, shares, ledger, gate, told };
}

const allSent = (t: Parameters<DispatchScene['statusOf']>[0], ids: DeliveryId[]) =>
  until(async () => (await Promise.all(ids.map((id) => s.statusOf(t, id)))).every((st) => st === 'success'));

describe('AttemptRunner: throughput control', () => {
  it('an endpoint held by a Retry-After: nothing sent, the delivery due again at the hold, its slot and place given back', async () => {
    const { t, endpoint } = await s.endpoint();
    const [id] = await s.due(t);
    const heldUntil = s.clock.now() + 4_000;
    await s.store.endpoints.hold(t, endpoint.id, heldUntil);
    const { runner, places, gate, told } = build();
    await runner.admit(id!);
    expect(sender.requests).toHaveLength(0);
    expect(told.wakeAt).toEqual([heldUntil]);
    expect(await s.dueAt(heldUntil - 1, [id!])).toEqual([]);
    expect(await s.dueAt(heldUntil, [id!])).toEqual([id]);
    expect(places.taken).toBe(0);
    expect(gate.tryEnter({ id: id!, endpointId: endpoint.id }, false)).toBe(true);
  });

  it('a rate limit of 2: two sent in the second, the third due when the first leaves the window', async () => {
    const { t } = await s.endpoint({ rateLimit: 2 });
    const ids = await s.due(t, 3);
    const { runner, told } = build({ slots: 4 });
    const start = s.clock.now();
    for (const id of ids) await runner.admit(id);
    await allSent(t, ids.slice(0, 2));
    expect(sender.requests).toHaveLength(2);
    expect(told.wakeAt).toEqual([start + 1_000]);
    expect(await s.dueAt(start + 1_000, [ids[2]!])).toEqual([ids[2]]);
  });
});

describe('AttemptRunner', () => {
  it('a wake-up with a free place: claimed, sent, recorded; then its slot and its place are given back', async () => {
    const { t, endpoint } = await s.endpoint();
    const [id] = await s.due(t);
    const { runner, places, gate, told } = build();
    await runner.admit(id!);
    await allSent(t, [id!]);
    await until(() => places.taken === 0);
    expect(told.placeFreed).toBe(1);
    expect(gate.tryEnter({ id: id!, endpointId: endpoint.id }, false)).toBe(true);
  });

  it('a wake-up that finds every place taken is not claimed: forgotten, and the sweep told it fell behind', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const { runner, places, ledger, told } = build({ places: 1 });
    places.take();
    ledger.note(id!, s.clock.now());
    await runner.admit(id!);
    expect(ledger.isOnItsWay(id!, s.clock.now())).toBe(false);
    expect(told.fellBehind).toBe(1);
    expect(await s.dueAt(s.clock.now(), [id!])).toEqual([id]);
  });

  it('one the gate does not let in waits (given back, on its way); the send that ends hands it the turn, in its own trace', async () => {
    const { t } = await s.endpoint();
    const [first, second] = await s.due(t, 2);
    const { runner, ledger, places } = build({ slots: 1 });
    sender.hold();
    await context.with(ROOT_CONTEXT.setValue(WAKE_UP, 'first'), () => runner.admit(first!));
    await context.with(ROOT_CONTEXT.setValue(WAKE_UP, 'second'), () => runner.admit(second!));
    expect(await s.metric('wirehook_dispatch_waiting_deliveries')).toBe(1);
    expect(ledger.isOnItsWay(second!, s.clock.now())).toBe(true);
    expect(await s.dueAt(s.clock.now(), [second!])).toEqual([second]);
    expect(places.taken).toBe(1); // waiting takes no place
    sender.answer();
    await until(() => sender.held() === 1);
    expect(sender.contexts.map((c) => c.getValue(WAKE_UP))).toEqual(['first', 'second']);
    sender.release();
    await allSent(t, [first!, second!]);
    expect(await s.metric('wirehook_dispatch_waiting_deliveries')).toBe(0);
  });

  /**
   * Has `store.deliveries.release` of `id`, once written, run `meanwhile` before its caller hears:
   * what happens while a release's answer is on its way.
   */
  function afterReleaseOf(id: DeliveryId, meanwhile: () => Promise<void>): void {
    const release = s.store.deliveries.release.bind(s.store.deliveries);
    s.store.deliveries.release = async (ref, at) => {
      await release(ref, at);
      if (ref.deliveryId === id) await meanwhile();
    };
  }

  /** An endpoint of 1 slot and 4 parked (4 a slot), its sends held: 5 of its 6 due admitted, so the sixth finds both full. */
  async function fullParking() {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 6);
    const { runner, told } = build({ slots: 1 });
    sender.hold();
    for (const id of ids.slice(0, 5)) await runner.admit(id);
    return { t, ids, runner, told };
  }

  it('one the gate cannot park goes back; its endpoint’s queue drained while that release was written: the sweep asked again after it', async () => {
    const { t, ids, runner, told } = await fullParking();
    afterReleaseOf(ids[5]!, async () => {
      sender.release();
      await allSent(t, ids.slice(0, 5));
    });
    await runner.admit(ids[5]!);
    expect(await s.dueAt(s.clock.now(), [ids[5]!])).toEqual([ids[5]]);
    // Once as the queue drained to half (its sweep may read before the release), once after the release.
    expect(told.refill).toBe(2);
  });

  it('one the gate cannot park goes back; its endpoint’s queue still full once that release is written: no sweep asked for', async () => {
    const { ids, runner, told } = await fullParking();
    await runner.admit(ids[5]!);
    expect(await s.dueAt(s.clock.now(), [ids[5]!])).toEqual([ids[5]]);
    expect(told.refill).toBe(0);
  });

  it('one the gate cannot park goes back; its queue drained by one (not half) while that release was written: no sweep, the drain to half asks', async () => {
    const { ids, runner, told } = await fullParking(); // 1 sending, 4 of 4 parked
    afterReleaseOf(ids[5]!, async () => {
      sender.answer();
      await until(() => sender.requests.length === 2); // the second sent: 3 of 4 parked
    });
    await runner.admit(ids[5]!);
    expect(told.refill).toBe(0);
    sender.answer();
    await until(() => sender.requests.length === 3); // 2 of 4 parked: half
    expect(told.refill).toBe(1);
  });

  it('one over its tenant’s share goes back; the tenant’s sends ended while that release was written: the sweep asked again after it', async () => {
    const { t } = await s.endpoint();
    const [a, b, over] = await s.due(t, 3);
    const { runner, shares, told } = build({ slots: 4, placesPerTenant: 2 });
    sender.hold();
    await runner.admit(a!);
    await runner.admit(b!);
    afterReleaseOf(over!, async () => {
      sender.release();
      await until(() => shares.taken(t) === 0);
    });
    await runner.admit(over!);
    expect(await s.dueAt(s.clock.now(), [over!])).toEqual([over]);
    // Once as the sends ended down to half (its sweep may read before the release), once after the release.
    expect(told.refill).toBe(2);
  });

  it('one over its tenant’s share goes back; its sends fell to half and rose again while that release was written: marked, the next fall asks', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 7);
    const { runner, shares, told } = build({ slots: 8, placesPerTenant: 4 });
    sender.hold();
    for (const id of ids.slice(0, 4)) await runner.admit(id);
    afterReleaseOf(ids[4]!, async () => {
      sender.answer();
      sender.answer();
      await until(() => shares.taken(t) === 2); // down to half: its sweep may read before the release
      await runner.admit(ids[5]!);
      await runner.admit(ids[6]!); // back to its whole share
    });
    await runner.admit(ids[4]!);
    expect(told.refill).toBe(1);
    sender.answer();
    sender.answer();
    await until(() => told.refill === 2);
  });

  it('one over its tenant’s share goes back while the tenant’s sends go on: no sweep until they end down to half', async () => {
    const { t } = await s.endpoint();
    const [a, b, over] = await s.due(t, 3);
    const { runner, told } = build({ slots: 4, placesPerTenant: 2 });
    sender.hold();
    await runner.admit(a!);
    await runner.admit(b!);
    await runner.admit(over!);
    expect(told.refill).toBe(0);
    sender.answer();
    await until(() => told.refill === 1);
  });

  it('a turn whose delivery is no longer claimable passes to the next one waiting', async () => {
    const { t } = await s.endpoint();
    const [first, gone, next] = await s.due(t, 3);
    const { runner } = build({ slots: 1 });
    sender.hold();
    for (const id of [first!, gone!, next!]) await runner.admit(id);
    await s.claim(gone!); // claimed elsewhere meanwhile
    sender.release();
    await allSent(t, [first!, next!]);
    expect(sender.requests).toHaveLength(2);
    expect(await s.statusOf(t, gone!)).toBe('pending');
  });

  it('a hand-off from intake is sent without a claim of its own', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const job = await s.claim(id!);
    const claimMany = s.store.deliveries.claimMany;
    s.store.deliveries.claimMany = () => Promise.reject(new Error('a hand-off is claimed already'));
    const { runner } = build();
    runner.startHandedOver(job, s.clock.now());
    await allSent(t, [id!]);
    s.store.deliveries.claimMany = claimMany;
  });

  it('stopped, it admits nothing; settled waits for the sends in flight', async () => {
    const { t } = await s.endpoint();
    const [sending, late] = await s.due(t, 2);
    const { runner } = build({ slots: 2 });
    sender.hold();
    await runner.admit(sending!);
    runner.stopAdmitting();
    await runner.admit(late!);
    const events: string[] = [];
    const settling = runner.settled().then(() => events.push('settled'));
    // A store round trip (I/O: a settled() that did not wait has resolved by then), then the answer.
    expect(await s.statusOf(t, sending!)).toBe('pending');
    expect(sender.requests).toHaveLength(1); // the late one was not admitted
    events.push('answered');
    sender.release();
    await settling;
    expect(events).toEqual(['answered', 'settled']);
    expect(await s.statusOf(t, sending!)).toBe('success');
    expect(await s.dueAt(s.clock.now(), [late!])).toEqual([late]);
  });
});

describe('AttemptRunner: a place given back at the answer', () => {
  /** Holds every completion the store is asked to write, until `release()`. */
  function holdCompletions() {
    const complete = s.store.deliveries.complete.bind(s.store.deliveries);
    const waiting: (() => void)[] = [];
    s.store.deliveries.complete = (ref, outcome) => new Promise((resolve, reject) => waiting.push(() => void complete(ref, outcome).then(resolve, reject)));
    return {
      get count() {
        return waiting.length;
      },
      release() {
        s.store.deliveries.complete = complete;
        for (const go of waiting.splice(0)) go();
      },
    };
  }

  /** The bytes RECORDING_PAYLOAD_BYTES counts for `id`'s payload (2 a character), read by a claim given back at once. */
  async function payloadBytesOf(id: DeliveryId): Promise<number> {
    const probe = await s.claim(id);
    await s.store.deliveries.release(claimRef(probe), s.clock.now());
    return 2 * probe.message.payload.length;
  }

  it('an answered send gives its place, its tenant’s place and its endpoint’s turn back before its completion is written', async () => {
    const { t } = await s.endpoint();
    const [first, second] = await s.due(t, 2);
    const { runner, places, shares } = build({ places: 1, slots: 1, placesPerTenant: 1 });
    const completions = holdCompletions();
    await runner.admit(first!);
    await until(() => completions.count === 1);
    expect(places.taken).toBe(0);
    expect(shares.taken(t)).toBe(0);
    expect(await s.metric('wirehook_dispatch_in_flight_deliveries')).toBe(0);
    expect(await s.metric('wirehook_dispatch_completing_deliveries')).toBe(1);
    // The one place, the endpoint's one slot and the tenant's one place: all free for the next.
    await runner.admit(second!);
    await until(() => completions.count === 2);
    expect(sender.requests).toHaveLength(2);
    completions.release();
    await allSent(t, [first!, second!]);
  });

  it('for a store that writes each completion alone (MongoDB): a send keeps its place until its attempt is written', async () => {
    const { t } = await s.endpoint();
    const [id] = await s.due(t);
    const { runner, places } = build({ places: 2, completionsWithoutPlace: false });
    const completions = holdCompletions();
    await runner.admit(id!);
    await until(() => completions.count === 1);
    expect(places.taken).toBe(1);
    expect(await s.metric('wirehook_dispatch_completing_deliveries')).toBe(0);
    completions.release();
    await allSent(t, [id!]);
    expect(places.taken).toBe(0);
  });

  it('a 429 with Retry-After: the endpoint is held before its turn goes to the delivery waiting for it, which is put off, not sent', async () => {
    const { t, endpoint } = await s.endpoint();
    const [first, second] = await s.due(t, 2);
    let holdWritten!: () => void;
    const holding = new Promise<void>((resolve) => (holdWritten = resolve));
    let heldUntil = 0;
    const { runner, told } = build({
      slots: 1,
      // A store whose hold takes a while (a remote one's round trip): written once the test says.
      hold: async (job, until) => {
        heldUntil = until;
        await holding;
        await s.store.endpoints.hold(job.tenant, job.endpoint.id, until);
      },
    });
    sender.hold();
    await runner.admit(first!);
    await runner.admit(second!); // parked behind the first: the endpoint's one slot is taken
    sender.answer(endpoint.id, { ok: false, status: 429, responseHead: 'HTTP/1.1 429', error: null, durationMs: 5, sourceIp: null, retryAfter: '60' });
    await until(() => heldUntil > 0);
    expect(await s.metric('wirehook_dispatch_completing_deliveries')).toBe(0); // its turn not handed on yet
    holdWritten();
    // The second takes the turn once the hold stands: put off to it, never sent.
    await until(() => told.wakeAt.includes(heldUntil));
    expect(await s.dueAt(heldUntil - 1, [second!])).toEqual([]);
    expect(await s.dueAt(heldUntil, [second!])).toEqual([second]);
    expect(sender.requests).toHaveLength(1);
  });

  it('the payload bytes of completions written come back: two in a row under a budget of one payload both give their place back', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 2);
    const bytes = await payloadBytesOf(ids[0]!);
    const { runner, places } = build({ places: 2, recordingPayloadBytes: bytes });
    for (const id of ids) {
      const completions = holdCompletions();
      await runner.admit(id);
      await until(() => completions.count === 1);
      expect(places.taken).toBe(0);
      completions.release();
      await allSent(t, [id]);
    }
  });

  it('no more completions written without a place than there are places (1): beyond, a send keeps its place until written', async () => {
    const { t } = await s.endpoint();
    const [first, second, third] = await s.due(t, 3);
    const { runner, places, told } = build({ places: 1, slots: 2 });
    const completions = holdCompletions();
    await runner.admit(first!);
    await until(() => completions.count === 1); // written without its place: 1 of 1
    await runner.admit(second!);
    await until(() => completions.count === 2);
    expect(places.taken).toBe(1); // the second keeps its place
    expect(await s.metric('wirehook_dispatch_in_flight_deliveries')).toBe(1);
    await runner.admit(third!); // no place: left due, the sweep told
    expect(told.fellBehind).toBe(1);
    expect(sender.requests).toHaveLength(2);
    completions.release();
    await allSent(t, [first!, second!]);
    expect(places.taken).toBe(0);
    expect(await s.metric('wirehook_dispatch_in_flight_deliveries')).toBe(0);
  });

  it('no more payload written without a place than its bytes allow: a payload at 2 bytes a character fits exactly, a byte less keeps its place', async () => {
    const { t } = await s.endpoint();
    const ids = await s.due(t, 2);
    const bytes = await payloadBytesOf(ids[0]!);
    for (const [id, budget, taken] of [
      [ids[0]!, bytes, 0],
      [ids[1]!, bytes - 1, 1],
    ] as const) {
      const { runner, places } = build({ places: 2, recordingPayloadBytes: budget });
      const completions = holdCompletions();
      await runner.admit(id);
      await until(() => completions.count === 1);
      expect(places.taken).toBe(taken);
      completions.release();
      await allSent(t, [id]);
    }
  });
});

describe('AttemptRunner: jobs handed over with every place taken', () => {
  /** `count` due deliveries of one endpoint, each of its own message, claimed as intake claims them. */
  async function claimed(count: number) {
    const { t } = await s.endpoint();
    const ids = await s.due(t, count);
    return { t, ids, jobs: await Promise.all(ids.map((id) => s.claim(id))) };
  }
  const inTrace = (name: string, fn: () => void) => context.with(ROOT_CONTEXT.setValue(WAKE_UP, name), fn);

  it('wait for the next places in order, each in its own trace, one place each, with no claim of their own', async () => {
    const { t, ids, jobs } = await claimed(4);
    sender.hold();
    // Two places: two sent, two wait (as many as the places).
    const { runner, places, told } = build({ places: 2, slots: 4 });
    jobs.forEach((job, i) => inTrace(`hand-off ${i}`, () => runner.takeHandedOver(job, s.clock.now())));
    await until(() => sender.held() === 2);
    expect(runner.heldOver).toBe(2);
    expect(places.taken).toBe(2);
    // Leased while they wait: nothing due for a sweep.
    expect(await s.dueAt(s.clock.now(), ids)).toEqual([]);
    sender.answer();
    await until(() => sender.requests.length === 3);
    expect(places.taken).toBe(2);
    expect(runner.heldOver).toBe(1);
    sender.release();
    await allSent(t, ids);
    expect(sender.requests.map((r) => r.headers['webhook-id'])).toEqual(jobs.map((j) => j.message.id));
    expect(sender.contexts.map((c) => c.getValue(WAKE_UP))).toEqual(['hand-off 0', 'hand-off 1', 'hand-off 2', 'hand-off 3']);
    expect(told.fellBehind).toBe(0);
    await until(() => places.taken === 0);
  });

  it('hold one payload’s bytes at most (2 a character, once a message); the job beyond goes back, and the bytes come back as jobs start', async () => {
    const { t, ids, jobs } = await claimed(5);
    sender.hold();
    // Two places; room for one payload to wait.
    const { runner, told } = build({ places: 2, slots: 4, heldOverPayloadBytes: 2 * jobs[0]!.message.payload.length });
    for (const job of jobs.slice(0, 4)) runner.takeHandedOver(job, s.clock.now());
    await until(() => sender.held() === 2);
    expect(runner.heldOver).toBe(1);
    await until(async () => (await s.dueAt(s.clock.now(), ids)).length === 1);
    expect(await s.dueAt(s.clock.now(), ids)).toEqual([ids[3]]);
    expect(told.fellBehind).toBe(1);
    // One send ends: the held job takes its place, and its bytes are free for another.
    sender.answer();
    await until(() => runner.heldOver === 0 && sender.held() === 2);
    runner.takeHandedOver(jobs[4]!, s.clock.now());
    expect(runner.heldOver).toBe(1);
    sender.release();
    await allSent(t, [ids[0]!, ids[1]!, ids[2]!, ids[4]!]);
  });

  it('a job that waited past 1 s for a place, or 5 s since its message was written, is given back at its turn, not sent', async () => {
    const { t, ids, jobs } = await claimed(2);
    sender.hold();
    const { runner, told } = build({ places: 1, slots: 4 });
    for (const job of jobs) runner.takeHandedOver(job, s.clock.now());
    await until(() => sender.held() === 1);
    s.clock.advance(1_001);
    sender.release();
    await allSent(t, ids.slice(0, 1));
    await until(async () => (await s.dueAt(s.clock.now(), ids)).length === 1);
    expect(await s.dueAt(s.clock.now(), ids)).toEqual([ids[1]]);
    expect(sender.requests).toHaveLength(1);
    expect(runner.heldOver).toBe(0);
    expect(told.fellBehind).toBe(1);
  });

  it('a job taken 5 s after its message was written is given back at once', async () => {
    const { ids, jobs } = await claimed(1);
    const { runner, places } = build({ places: 1 });
    s.clock.advance(5_001);
    runner.takeHandedOver(jobs[0]!, s.clock.now());
    expect(places.taken).toBe(0);
    await until(async () => (await s.dueAt(s.clock.now(), ids)).length === 1);
    expect(sender.requests).toHaveLength(0);
  });

  it('at stop, gives back the jobs still waiting; settled() resolves once their releases are written', async () => {
    const { ids, jobs } = await claimed(3);
    sender.hold();
    const { runner } = build({ places: 1, slots: 4 });
    for (const job of jobs) runner.takeHandedOver(job, s.clock.now());
    await until(() => sender.held() === 1);
    // One sent, one waiting, one given back at once (beyond as many as the places). Releases
    // that take a while from here: settled() must wait for them.
    const release = s.store.deliveries.release.bind(s.store.deliveries);
    s.store.deliveries.release = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return release(...args);
    };
    runner.stopAdmitting();
    sender.release();
    await runner.settled();
    expect(await s.dueAt(s.clock.now(), ids)).toEqual(ids.slice(1));
    expect(sender.requests).toHaveLength(1);
  });
});
