// The dispatcher under store and bus faults, and under one tenant's backlog: no error ends
// the process, every message still arrives, and a healthy endpoint is never held behind
// another endpoint's queue. Faults are injected at the store and bus ports of a real
// embedded Wirehook delivering to real HTTPS receivers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, readMetric, testCa } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, TEST_RESOLVE, type NamedReceiver } from '../support/receivers.ts';

const DELIVERY_TIMEOUT_MS = 1_000;
const LEASE_MS = 2 * DELIVERY_TIMEOUT_MS + 15_000; // a connection wait and an attempt, each bounded, and a margin
let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
const undo: (() => void)[] = [];

beforeAll(async () => {
  wh = await startWirehook({
    allowHosts: TEST_ALLOW_HOSTS,
    resolve: TEST_RESOLVE,
    ca: (await testCa()).caPem,
    deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
    endpointSlots: 2,
  });
  t = await wh.tenant();
  rx = await startReceiver();
});
afterEach(() => {
  for (const restore of undo.splice(0)) restore();
  rx.receiver.respondWith({});
  rx.receiver.clear();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

let seq = 0;
async function endpoint(url = rx.url()): Promise<string> {
  const consumer = `fault-${++seq}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
  expect((await t.api.post('/v1/endpoints', { consumer_id: consumerId, url })).status).toBe(201);
  return consumer;
}
const send = async (consumer: string) => {
  const res = await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: { n: 1 } });
  expect(res.status).toBe(202);
  return res.body.id as string;
};
const statusOf = async (id: string) => (await t.api.get(`/v1/messages/${id}`)).body.status as string;
const arrived = (r: NamedReceiver, id: string) => r.receiver.requests.filter((q) => q.headers['webhook-id'] === id).length;

/** Makes the next `times` calls of `target[method]` throw `error`, then lets them through. */
function failNext<T extends object>(target: T, method: keyof T & string, times: number, error: () => Error): void {
  const original = (target as Record<string, unknown>)[method] as (...args: unknown[]) => Promise<unknown>;
  let left = times;
  (target as Record<string, unknown>)[method] = (...args: unknown[]) => {
    if (left > 0) {
      left--;
      return Promise.reject(error());
    }
    return original.apply(target, args);
  };
  undo.push(() => ((target as Record<string, unknown>)[method] = original));
}

const metric = (name: string, labels: Record<string, string> = {}) => readMetric(wh.embedded.metricsUrl(), name, labels);

const busy = () => Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 });

describe('store faults', () => {
  it('a completion that cannot be written: logged and counted, the API keeps serving, the delivery is sent again after its lease', async () => {
    const consumer = await endpoint();
    const before = await metric('wirehook_dispatch_store_errors_total', { operation: 'complete' });
    failNext(wh.store.deliveries, 'complete', 2, busy);
    const ids = [await send(consumer), await send(consumer)];
    await eventually(() => ids.forEach((id) => expect(arrived(rx, id)).toBe(1)));
    await eventually(async () => expect(await metric('wirehook_dispatch_store_errors_total', { operation: 'complete' })).toBe(before + 2));
    // Still serving; the attempts were not written, so the messages are still pending.
    for (const id of ids) expect(await statusOf(id)).toBe('pending');

    await wh.advance(LEASE_MS);
    await eventually(async () => {
      for (const id of ids) expect(await statusOf(id)).toBe('success');
    });
    for (const id of ids) expect(arrived(rx, id)).toBe(2); // at least once: sent again after the lease
  });

  it('a claim that fails leaves the delivery for the sweeper: every message arrives once', async () => {
    // New messages are claimed as intake writes them; deliveries held by a pause are claimed
    // by the dispatcher once the endpoint is resumed (the sweeper finds them).
    const consumer = `fault-${++seq}`;
    const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
    const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).body.id;
    expect((await t.api.patch(`/v1/endpoints/${endpointId}`, { status: 'paused' })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await send(consumer));
    const before = await metric('wirehook_dispatch_store_errors_total', { operation: 'claim' });
    // The dispatcher claims a turn's wake-ups in one call: the first call fails, each of its claims counted.
    const failed: number[] = [];
    const deliveries = wh.store.deliveries;
    const claimMany = deliveries.claimMany!.bind(deliveries);
    deliveries.claimMany = (claimIds, now, leaseUntil) => {
      if (failed.length > 0) return claimMany(claimIds, now, leaseUntil);
      failed.push(claimIds.length);
      return Promise.reject(busy());
    };
    undo.push(() => (deliveries.claimMany = claimMany));
    expect((await t.api.patch(`/v1/endpoints/${endpointId}`, { status: 'active' })).status).toBe(200);
    await eventually(async () => {
      for (const id of ids) expect(await statusOf(id)).toBe('success');
    });
    for (const id of ids) expect(arrived(rx, id)).toBe(1);
    expect(failed[0]).toBeGreaterThan(0);
    expect(await metric('wirehook_dispatch_store_errors_total', { operation: 'claim' })).toBe(before + failed[0]!);
  });

  it('a release that fails keeps the lease until it runs out; then the delivery is sent', async () => {
    const consumer = await endpoint();
    failNext(wh.store.deliveries, 'release', 3, busy);
    const ids = await Promise.all(Array.from({ length: 10 }, () => send(consumer)));
    await eventually(async () => expect((await Promise.all(ids.map(statusOf))).filter((s) => s === 'success')).toHaveLength(7));
    await wh.advance(LEASE_MS);
    await eventually(async () => {
      for (const id of ids) expect(await statusOf(id)).toBe('success');
    });
    for (const id of ids) expect(arrived(rx, id)).toBe(1);
  });

  it('readiness: a store that fails its reads is named in /readyz (503), and it is ready again when they answer', async () => {
    const readyz = async () => {
      const res = await fetch(`${wh.embedded.metricsUrl()}/readyz`);
      return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
    };
    expect(await readyz()).toEqual({ status: 200, checks: { store: 'ok', secret_key: 'ok', api: 'ok', portal: 'ok' } });
    failNext(wh.store.orgs, 'get', 1, () => new Error('SQLITE_IOERR: disk I/O error'));
    expect(await readyz()).toEqual({ status: 503, checks: { store: 'SQLITE_IOERR: disk I/O error', secret_key: 'ok', api: 'ok', portal: 'ok' } });
    failNext(wh.store.sealing, 'keyChecks', 1, () => new Error('SQLITE_IOERR: disk I/O error'));
    expect((await readyz()).checks['secret_key']).toBe('SQLITE_IOERR: disk I/O error');
    expect(await readyz()).toEqual({ status: 200, checks: { store: 'ok', secret_key: 'ok', api: 'ok', portal: 'ok' } });
  });
});

describe('the hand-off from intake to the dispatcher (embedded mode)', () => {
  it('deliveries claimed at intake beyond the dispatcher’s room wait for places or go back to the store, and are all sent once', async () => {
    // Sends at once each see room for their deliveries; the dispatcher takes 2, keeps up to 2
    // waiting for their places, and gives the rest back (how many of each depends on timing).
    const small = await startWirehook({
      allowHosts: TEST_ALLOW_HOSTS,
      resolve: TEST_RESOLVE,
      ca: (await testCa()).caPem,
      dispatchConcurrency: 2,
    });
    // Counts the claims and releases: handed-over jobs need no claim of their own; the surplus is released.
    const calls = { claim: 0, release: 0 };
    const deliveries = small.store.deliveries;
    const claimMany = deliveries.claimMany!.bind(deliveries);
    deliveries.claimMany = (ids, now, leaseUntil) => {
      calls.claim += ids.length;
      return claimMany(ids, now, leaseUntil);
    };
    const release = deliveries.release.bind(deliveries);
    deliveries.release = (claim, at) => {
      calls.release++;
      return release(claim, at);
    };
    try {
      const tenant = await small.tenant();
      rx.receiver.respondWith({ delayMs: 50 });
      const consumers: string[] = [];
      for (let i = 0; i < 4; i++) {
        const consumerId = (await tenant.api.post('/v1/consumers', { external_id: `room-${i}` })).body.id;
        expect((await tenant.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).status).toBe(201);
        consumers.push(`room-${i}`);
      }
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await tenant.api.post('/v1/messages', { consumer: consumers[i % 4], event_type: 'order.created', payload: { i } });
          expect(res.status).toBe(202);
          return res.body.id as string;
        }),
      );
      // Well inside the lease (17 s): the surplus was released or sent, not left leased.
      await eventually(() => ids.forEach((id) => expect(arrived(rx, id)).toBe(1)), 10_000);
      await eventually(async () => {
        for (const id of ids) expect((await tenant.api.get(`/v1/messages/${id}`)).body.status).toBe('success');
      });
      expect(await readMetric(small.embedded.metricsUrl(), 'wirehook_delivery_attempts_total', { outcome: 'success', via: 'direct' })).toBe(20);
      // Every delivery released was claimed again by the dispatcher (as were those no create claimed);
      // the ones it took or kept never were.
      expect(calls.claim).toBeGreaterThanOrEqual(calls.release);
      expect(calls.claim).toBeLessThan(20);
    } finally {
      await small.close();
    }
  });
});

describe('bus faults', () => {
  it('publishes that fail (at intake and in the sweep) are logged; the sweeper delivers every message', async () => {
    const consumer = await endpoint();
    failNext(wh.embedded.bus, 'publish', 6, () => new Error('bus unavailable'));
    const ids = [await send(consumer), await send(consumer), await send(consumer)];
    await eventually(async () => {
      for (const id of ids) expect(await statusOf(id)).toBe('success');
    }, 10_000);
    for (const id of ids) expect(arrived(rx, id)).toBe(1);
  });
});

describe('endpoint URL rules at send time', () => {
  it('a stored URL that breaks the rules (written around the API) is not sent to: the attempt is blocked', async () => {
    const consumer = await endpoint();
    const consumerId = (await t.api.get('/v1/consumers')).body.items.find((c: { external_id: string }) => c.external_id === consumer).id;
    const [ep] = (await t.api.get(`/v1/endpoints?consumer_id=${consumerId}`)).body.items;
    const tenant = { orgId: t.orgId, env: t.env } as Parameters<typeof wh.store.endpoints.update>[0];
    await wh.store.endpoints.update(tenant, ep.id, { url: rx.url().replace('https:', 'http:') });
    const id = await send(consumer);
    await eventually(async () => expect(await statusOf(id)).toBe('retrying'));
    const attempt = (await t.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts[0];
    expect(attempt).toMatchObject({ response_status: null, error: 'blocked: url must use https' });
    expect(arrived(rx, id)).toBe(0);
  });
});

describe('manual re-send during a send', () => {
  it('POST /v1/deliveries/{id}/retry while the delivery is being sent: sent again after that send', async () => {
    const consumer = await endpoint();
    rx.receiver.respondWith({ delayMs: 300 });
    const id = await send(consumer);
    await eventually(() => expect(arrived(rx, id)).toBe(1));
    const deliveryId = (await t.api.get(`/v1/messages/${id}`)).body.deliveries[0].id;
    expect((await t.api.post(`/v1/deliveries/${deliveryId}/retry`)).status).toBe(202);
    await eventually(() => expect(arrived(rx, id)).toBe(2));
    await eventually(async () => expect(await statusOf(id)).toBe('success'));
    expect((await t.api.get(`/v1/messages/${id}`)).body.deliveries[0]).toMatchObject({ status: 'success', attempt_count: 2 });
  });
});

describe('one tenant must not slow another', () => {
  it('a backlog behind an endpoint that never answers holds back neither new messages nor due retries of another', async () => {
    const stuck = await startReceiver();
    stuck.receiver.respondWith({ hang: true });
    const started = Date.now();
    try {
      const noisy = await wh.tenant();
      const noisyConsumerId = (await noisy.api.post('/v1/consumers', { external_id: 'noisy' })).body.id;
      await noisy.api.post('/v1/endpoints', { consumer_id: noisyConsumerId, url: stuck.url() });
      // More than the old 1,000-wake-up cap, queued behind 2 slots that hang for the whole timeout.
      for (let i = 0; i < 1_200; i += 100) {
        const batch = await Promise.all(
          Array.from({ length: 100 }, () => noisy.api.post('/v1/messages', { consumer: 'noisy', event_type: 'order.created', payload: {} })),
        );
        expect(batch.every((r) => r.status === 202)).toBe(true);
      }

      // New messages of a healthy endpoint arrive at once.
      const consumer = await endpoint();
      const fresh: string[] = [];
      for (let i = 0; i < 20; i++) fresh.push(await send(consumer));
      await eventually(() => fresh.forEach((id) => expect(arrived(rx, id)).toBe(1)), 3_000);

      // Its retries, due later than the whole backlog, are found by the sweeper in front of it.
      rx.receiver.respondWith({ status: 503 });
      const retried = await send(consumer);
      await eventually(async () => expect(await statusOf(retried)).toBe('retrying'));
      rx.receiver.respondWith({});
      await wh.advance(10_000); // the default policy's first retry comes 5 s later
      await eventually(async () => expect(await statusOf(retried)).toBe('success'), 3_000);
      // The stuck endpoint had at most its 2 slots: 2 sends per timeout, while all of this ran.
      expect(stuck.receiver.requests.length).toBeLessThanOrEqual(2 * Math.ceil((Date.now() - started) / DELIVERY_TIMEOUT_MS + 1));
    } finally {
      await stuck.receiver.close();
    }
  });
});
