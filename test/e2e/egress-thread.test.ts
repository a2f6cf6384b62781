// Embedded mode sends from a thread of its own (EgressThread), so the API's thread keeps to the
// API. The delivery suite (delivery.test.ts) runs every send there; this file shows that is
// where they go, and where they stay when a test brings its own resolver (a function cannot
// cross to a thread).
import { readdirSync, readFileSync } from 'node:fs';
import { EgressThread, HttpEgress } from '@wirehook/egress';
import { eventually } from '@wirehook/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';
import { reachingReceivers, startReceiver, testLookup, type NamedReceiver } from '../support/receivers.ts';

/** This process's threads by name (Linux `comm`). */
function threadNames(): string[] {
  return readdirSync('/proc/self/task').map((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
}

let wh: Harness | undefined;
let rx: NamedReceiver | undefined;
afterEach(async () => {
  await wh?.close();
  await rx?.receiver.close();
});

async function deliverOne(harness: Harness, receiver: NamedReceiver): Promise<void> {
  const t = await harness.tenant();
  const consumer = (await t.api.post('/v1/consumers', { external_id: 'c' })).body.id;
  const secret = (await t.api.post('/v1/endpoints', { consumer_id: consumer, url: receiver.url() })).body.secret;
  await t.api.post('/v1/messages', { consumer: 'c', event_type: 'a.b', payload: { n: 1 } });
  await eventually(() => expect(receiver.receiver.requests).toHaveLength(1));
  expect(receiver.receiver.verify(secret)).toMatchObject({ type: 'a.b', data: { n: 1 } });
}

describe('embedded mode: the egress thread', () => {
  it('sends a delivery from the thread named egress, started with the process', async () => {
    expect(threadNames()).not.toContain('egress');
    wh = await startWirehook(await reachingReceivers());
    rx = await startReceiver();
    const egress = wh.embedded.egress;
    expect(egress).toBeInstanceOf(EgressThread);
    expect((egress as EgressThread).starts).toBe(1);
    expect(threadNames()).toContain('egress');
    await deliverOne(wh, rx);
    expect((egress as EgressThread).starts).toBe(1);
    expect(threadNames()).toContain('egress');
    expect(await (await fetch(`${wh.embedded.metricsUrl()}/metrics`)).text()).toMatch(/^wirehook_egress_thread_restarts_total({[^}]*})? 0$/m);
    await wh.close();
    wh = undefined;
    // Closed with the rest: no thread left behind.
    expect(threadNames()).not.toContain('egress');
  });

  it('with a resolver function of the test’s own, sends stay on the calling thread', async () => {
    const reach = await reachingReceivers();
    wh = await startWirehook({ allowHosts: reach.allowHosts, ca: reach.ca, lookup: testLookup });
    rx = await startReceiver();
    expect(wh.embedded.egress).toBeInstanceOf(HttpEgress);
    await deliverOne(wh, rx);
    expect(threadNames()).not.toContain('egress');
    // No thread, no restart counter.
    expect(await (await fetch(`${wh.embedded.metricsUrl()}/metrics`)).text()).not.toContain('wirehook_egress_thread_restarts_total');
  });
});
