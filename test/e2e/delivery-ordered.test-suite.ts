// The delivery suite's ordered lanes: an endpoint with `ordering: key` delivers the
// messages of each ordering_key one at a time, in acceptance order, with consecutive
// webhook-sequence numbers; a head waiting for its retry holds only its own key.
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '@wirehook/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '@wirehook/testkit';
import type { NamedReceiver } from '../support/receivers.ts';
import { S, type DeliveryHarness, type DeliverySuite } from '../support/delivery-suite-context.ts';

/** A deterministic stream of numbers in [0, 1) (mulberry32), so a failure is reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Registers the part in the calling describe. */
export function describeOrderedLanes(suite: DeliverySuite): void {
  describe('ordered lanes (ordering: key)', () => {
    const { endpoint } = suite;
    let wh: DeliveryHarness;
    let rx: NamedReceiver;
    beforeAll(() => {
      ({ wh, rx } = suite);
    });

    const sendKeyed = async (consumer: string, key: string, n: number) => {
      const res = await suite.t.api.post('/v1/messages', { consumer, event_type: 'invoice.paid', payload: { key, n }, ordering_key: key });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const keyOf = (q: RecordedRequest) => q.headers['webhook-ordering-key'] as string;
    const seqOf = (q: RecordedRequest) => Number(q.headers['webhook-sequence']);

    it('10 keys × 100 messages with random first-attempt failures arrive per key in order, one in flight per key, numbered 1…100', async () => {
      const random = seeded(31);
      const inFlight = new Map<string, number>();
      let maxInFlight = 0;
      const tried = new Set<string>();
      const delivered = new Map<string, number[]>();
      rx.receiver.respondWith(async (q) => {
        const key = keyOf(q);
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
        maxInFlight = Math.max(maxInFlight, inFlight.get(key)!);
        await sleep(1);
        inFlight.set(key, inFlight.get(key)! - 1);
        const id = q.headers['webhook-id'] as string;
        const first = !tried.has(id);
        tried.add(id);
        if (first && random() < 0.1) return { status: 500 };
        delivered.set(key, [...(delivered.get(key) ?? []), seqOf(q)]);
        return { status: 200 };
      });
      const ep = await endpoint({ ordering: 'key' });
      expect((await suite.t.api.get(`/v1/endpoints/${ep.id}`)).body.ordering).toBe('key');
      const keys = Array.from({ length: 10 }, (_, i) => `order-${i}`);
      // Each key's messages are sent in order (its acceptance order); the keys side by side.
      const ids = await Promise.all(
        keys.map(async (key) => {
          const mine: string[] = [];
          for (let n = 1; n <= 100; n++) mine.push(await sendKeyed(ep.consumer, key, n));
          return mine;
        }),
      );
      // A failed head is retried 5 s later: move the clock until every lane has drained.
      await eventually(
        async () => {
          await wh.advance(5 * S);
          expect([...delivered.values()].reduce((sum, list) => sum + list.length, 0)).toBe(1_000);
        },
        120_000,
        100,
      );
      for (const key of keys) expect(delivered.get(key)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(maxInFlight).toBe(1);
      // Per key, nothing of sequence n+1 arrived before n was answered 200: the sequences of
      // the requests, in arrival order, never go down and never skip.
      for (const key of keys) {
        const seqs = rx.receiver.requests.filter((q) => keyOf(q) === key).map(seqOf);
        for (let i = 1; i < seqs.length; i++) expect(seqs[i]! - seqs[i - 1]!).toBeGreaterThanOrEqual(0);
        for (let i = 1; i < seqs.length; i++) expect(seqs[i]! - seqs[i - 1]!).toBeLessThanOrEqual(1);
      }
      // The delivery record shows the lane and the place; the message its key.
      const detail = (await suite.t.api.get(`/v1/messages/${ids[3]![41]}`)).body;
      expect(detail.ordering_key).toBe('order-3');
      expect(detail.deliveries[0]).toMatchObject({ ordering_key: 'order-3', sequence: 42, status: 'success' });
    }, 180_000);

    it('a failing head holds only its key; the key goes on once the head has ended', async () => {
      rx.receiver.respondWith((q) => ({ status: keyOf(q) === 'stuck' ? 500 : 200 }));
      const ep = await endpoint({ ordering: 'key', retry: { count: 1, interval: '1m' } });
      const stuck = [await sendKeyed(ep.consumer, 'stuck', 1), await sendKeyed(ep.consumer, 'stuck', 2)];
      const free: string[] = [];
      for (let n = 1; n <= 5; n++) free.push(await sendKeyed(ep.consumer, 'free', n));
      await eventually(() => expect(rx.receiver.requests.filter((q) => keyOf(q) === 'free').map(seqOf)).toEqual([1, 2, 3, 4, 5]));
      expect(rx.receiver.requests.filter((q) => keyOf(q) === 'stuck').map(seqOf)).toEqual([1]);
      // The head's one retry fails too: it has ended (failed), and the next of its key goes.
      rx.receiver.respondWith((q) => ({ status: keyOf(q) === 'stuck' && seqOf(q) === 1 ? 500 : 200 }));
      await wh.advance(60 * S);
      await eventually(() => expect(rx.receiver.requests.filter((q) => keyOf(q) === 'stuck').map(seqOf)).toEqual([1, 1, 2]));
      const deliveryOf = async (id: string) => (await suite.t.api.get(`/v1/messages/${id}`)).body.deliveries[0];
      expect(await deliveryOf(stuck[0]!)).toMatchObject({ status: 'failed', sequence: 1 });
      // What the service recorded: the stuck key's second delivered after its head ended, and
      // every message of the free key delivered in its place while the head was held.
      await eventually(async () => expect(await deliveryOf(stuck[1]!)).toMatchObject({ status: 'success', sequence: 2 }));
      // The free key's last was only received: its attempt is written after the receiver's answer.
      await eventually(async () => {
        for (const [i, id] of free.entries()) expect(await deliveryOf(id)).toMatchObject({ status: 'success', sequence: i + 1 });
      });
    });

    it('ordering_key longer than 200 characters, or with a control character, is 422; ordering other than none or key is 422', async () => {
      const ep = await endpoint();
      const at = (key: string) => suite.t.api.post('/v1/messages', { consumer: ep.consumer, event_type: 'invoice.paid', payload: {}, ordering_key: key });
      expect((await at('k'.repeat(200))).status).toBe(202);
      expect((await at('k'.repeat(201))).status).toBe(422);
      expect((await at('a\nb')).status).toBe(422);
      expect((await at('')).status).toBe(422);
      const bad = await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { ordering: 'fifo' });
      expect(bad.status).toBe(422);
      expect(bad.body.message).toContain('ordering: must be none or key');
      expect((await suite.t.api.patch(`/v1/endpoints/${ep.id}`, { ordering: 'key' })).body.ordering).toBe('key');
    });
  });
}
