// One organization's flood does not silence another's notices (#27 item 1), measured end to
// end with the engine ticking on its own (1 s): org A sends as fast as the API takes to 5
// endpoints answering 503 with retry count 0 (every message exhausts its retries at once);
// while it does, org B's endpoint fails once. B's notice must arrive within 10 s of that
// failure (it never arrived within 60 s behind a global queue).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, testCa } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { startReceiver, TEST_ALLOW_HOSTS, testLookup, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let failing: NamedReceiver;
let hooks: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook({ allowHosts: TEST_ALLOW_HOSTS, lookup: testLookup, ca: (await testCa()).caPem });
  [failing, hooks] = await Promise.all([startReceiver(), startReceiver()]);
  failing.receiver.respondWith({ status: 503 });
});
afterAll(async () => {
  await wh.close();
  await Promise.all([failing, hooks].map((r) => r.receiver.close()));
});

async function endpoint(t: TestTenant, name: string): Promise<string> {
  const consumer = (await t.api.post('/v1/consumers', { external_id: name })).body.id;
  await t.api.post('/v1/endpoints', { consumer_id: consumer, url: failing.url(`/${t.orgId}/${name}`), retry: { count: 0, interval: '1m' } });
  return name;
}

it("B's notice arrives within 10 s of its failure while A floods", async () => {
  const a = await wh.tenant();
  await a.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${a.orgId}`) });
  const flooded = await Promise.all([1, 2, 3, 4, 5].map((i) => endpoint(a, `a-${i}`)));
  const b = await wh.tenant();
  await b.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${b.orgId}`) });
  const bConsumer = await endpoint(b, 'b-1');

  let flooding = true;
  const flood = (async () => {
    for (let sent = 0; flooding && sent < 6_000; sent += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => a.api.post('/v1/messages', { consumer: flooded[i % 5], event_type: 'order.created', payload: {} })),
      );
    }
  })();
  try {
    await eventually(() => expect(failing.receiver.requests.length).toBeGreaterThan(3_000), 20_000);
    const id = (await b.api.post('/v1/messages', { consumer: bConsumer, event_type: 'order.created', payload: {} })).body.id;
    await eventually(async () => expect((await b.api.get(`/v1/messages/${id}`)).body.deliveries[0].attempts.length).toBe(1), 10_000);
    const failedAt = performance.now();
    await eventually(() => expect(hooks.receiver.requests.some((r) => r.path === `/alerts/${b.orgId}`)).toBe(true), 10_000);
    expect(performance.now() - failedAt).toBeLessThan(10_000);
  } finally {
    flooding = false;
    await flood;
  }
}, 60_000);
