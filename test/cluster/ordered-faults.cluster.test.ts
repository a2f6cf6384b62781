// Ordered lanes under a fault in cluster mode: a dispatcher killed with SIGKILL in the
// middle of a run of ordered sends. Its leased heads are claimed again when their leases run
// out, so a receiver may get a head twice, but no key's order may break: per key, the
// sequences in arrival order never go down and never skip, and every one arrives.
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, type ApiClient, type RecordedRequest } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterHarness, type ClusterHarness } from '../support/cluster-harness.ts';
import { startReceiver, type NamedReceiver } from '../support/receivers.ts';

const KEYS = 20;
const PER_KEY = 40;
// The harness's leases: twice DELIVERY_TIMEOUT_MS (1 s) plus the dispatcher's 15 s margin.
const LEASE_MS = 17_000;

let h: ClusterHarness;
let rx: NamedReceiver;
let api: ApiClient;

beforeAll(async () => {
  h = await startClusterHarness({ dispatchers: 2 });
  rx = await startReceiver();
  api = (await h.tenant()).api;
}, 180_000); // ten processes start slowly on a loaded machine

afterAll(async () => {
  await h?.close();
  await rx?.receiver.close();
});

const keyOf = (q: RecordedRequest) => q.headers['webhook-ordering-key'] as string;
const seqOf = (q: RecordedRequest) => Number(q.headers['webhook-sequence']);

describe('cluster faults: ordered lanes', () => {
  it('a dispatcher killed with SIGKILL mid-run breaks no key’s order; every message arrives', async () => {
    // A little time in the receiver, so the kill finds sends in flight.
    rx.receiver.respondWith(async () => {
      await sleep(2);
      return { status: 200 };
    });
    const consumerId = (await api.post('/v1/consumers', { external_id: 'lanes' })).body.id;
    const created = await api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ordering: 'key' });
    expect(created.status).toBe(201);
    const keys = Array.from({ length: KEYS }, (_, i) => `lane-${i}`);
    let accepted = 0;
    let killed: Promise<void> | null = null;
    await Promise.all(
      keys.map(async (key) => {
        // Each key's messages in order (its acceptance order); the keys side by side.
        for (let n = 1; n <= PER_KEY; n++) {
          const res = await api.post('/v1/messages', { consumer: 'lanes', event_type: 'lane.test', payload: { key, n }, ordering_key: key });
          expect(res.status, JSON.stringify(res.body)).toBe(202);
          if (++accepted === (KEYS * PER_KEY) / 2) killed = h.cluster.kill('dispatcher-1', 'SIGKILL');
        }
      }),
    );
    await killed;
    // The killed dispatcher's heads stay leased until their leases run out: move the clock past them.
    await eventually(
      async () => {
        await h.advance(LEASE_MS);
        const got = new Set(rx.receiver.requests.map((q) => `${keyOf(q)}#${seqOf(q)}`));
        expect(got.size).toBe(KEYS * PER_KEY);
      },
      120_000,
      250,
    );
    for (const key of keys) {
      const seqs = rx.receiver.requests.filter((q) => keyOf(q) === key).map(seqOf);
      expect(seqs[0], key).toBe(1);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]! - seqs[i - 1]!, `${key}: ${seqs.join(',')}`).toBeGreaterThanOrEqual(0);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]! - seqs[i - 1]!, `${key}: ${seqs.join(',')}`).toBeLessThanOrEqual(1);
      expect(seqs.at(-1), key).toBe(PER_KEY);
    }
    const twice = rx.receiver.requests.length - KEYS * PER_KEY;
    console.log(`ordered SIGKILL: ${KEYS * PER_KEY} messages in ${KEYS} lanes, ${rx.receiver.requests.length} requests, ${twice} arrived more than once`);
    await h.cluster.restart('dispatcher-1');
  }, 240_000);
});
