import { claimRef } from '../../src/ports/delivery-port.ts';
import { newId, type DeliveryId, type MessageId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { CreatedMessage, MessageQuery } from '../../src/ports/message-port.ts';
import type { Fixtures } from './fixtures.ts';
import { DAY, MessageFixtures, SECOND } from './message-fixtures.ts';

// Far older than anything else the suite writes, so deleteBefore removes only this test's
// messages from the shared store.
const ANCIENT = Date.UTC(2001, 0, 1);

/** Contract of MessageRepo.list, get and deleteBefore. */
export function describeMessageListContract(f: Fixtures): void {
  const m = new MessageFixtures(f);

  // Four messages, oldest first: m1 success, m2 success (no endpoint), m3 failed, m4 pending.
  const fourMessages = async () => {
    const t = await f.tenant();
    const acme = await f.consumer(t, 'acme-corp', 'Acme Corp');
    const globex = await f.consumer(t, 'globex', null);
    const endpoint = await m.hook(t, acme, { url: 'https://acme.example/hooks' });
    const m1 = await m.send(t, {
      consumerExternalId: 'acme-corp',
      idempotencyKey: 'order-100%',
      payload: '{"note":"needle in the payload"}',
    });
    const m2 = await m.send(t, { consumerExternalId: 'globex', eventType: 'user.created' });
    const m3 = await m.send(t, { consumerExternalId: 'acme-corp', idempotencyKey: 'ORDER_200' });
    const m4 = await m.send(t, { consumerExternalId: 'acme-corp', eventType: 'user.created', idempotencyKey: 'plain' });
    const job1 = await m.claim(m.only(m1));
    const at1 = f.clock.now();
    await f.store.deliveries.complete(claimRef(job1), m.succeeded(job1, at1));
    const job3 = await m.claim(m.only(m3));
    await f.store.deliveries.complete(claimRef(job3), m.failed(job3, f.clock.now()));
    return { t, acme, globex, endpoint, m1, m2, m3, m4, at1 };
  };
  const ids = (...sent: CreatedMessage[]): MessageId[] => sent.map((s) => s.message.id);
  const listed = async (t: Tenant, query: Omit<MessageQuery, 'limit'> & { limit?: number }): Promise<MessageId[]> =>
    (await f.store.messages.list(t, { limit: 50, ...query })).rows.map((s) => s.message.id);

  describe('messages: list', () => {
    it('lists newest first with consumer and summary, without payloads', async () => {
      const { t, acme, globex, endpoint, m1, m2, m3, m4, at1 } = await fourMessages();
      const { rows: items, resumeAfterId } = await f.store.messages.list(t, { limit: 50 });
      expect(resumeAfterId).toBeNull();
      expect(items.map((s) => s.message.id)).toEqual(ids(m4, m3, m2, m1));
      const { payload: _payload, ...head } = m1.message;
      expect(items[3]).toEqual({
        message: { ...head, status: 'success' },
        consumer: { id: acme.id, externalId: 'acme-corp', name: 'Acme Corp' },
        endpointUrl: endpoint.url,
        attemptCount: 1,
        lastAttemptAt: at1,
      });
      expect(items[2]).toMatchObject({
        consumer: { id: globex.id, externalId: 'globex', name: null },
        endpointUrl: null,
        attemptCount: 0,
        lastAttemptAt: null,
      });
      expect(items.map((s) => s.message.status)).toEqual(['pending', 'failed', 'success', 'success']);
    });

    it('sums attempts over deliveries, takes the latest attempt and the first delivery’s url', async () => {
      const { t, consumer, endpoint } = await m.scene();
      await m.hook(t, consumer, { url: 'https://second.example/hook' });
      const sent = await m.send(t);
      const [first, second] = sent.deliveryIds as [DeliveryId, DeliveryId];
      const t0 = f.clock.now();
      const a = await m.claim(first, t0);
      await f.store.deliveries.complete(claimRef(a), m.failed(a, t0, t0 + SECOND));
      const b = await m.claim(second, t0);
      await f.store.deliveries.complete(claimRef(b), m.succeeded(b, t0 + 5 * SECOND));
      const again = await m.claim(first, t0 + SECOND);
      await f.store.deliveries.complete(claimRef(again), m.succeeded(again, t0 + 2 * SECOND));
      const {
        rows: [summary],
      } = await f.store.messages.list(t, { limit: 1 });
      expect(summary).toMatchObject({ endpointUrl: endpoint.url, attemptCount: 3, lastAttemptAt: t0 + 5 * SECOND });
    });

    it("counts a page's deliveries by status in one read, within the tenant", async () => {
      const { t, consumer } = await m.scene();
      await m.hook(t, consumer, { url: 'https://second.example/hook' });
      const fanOut = await m.send(t);
      const [first] = fanOut.deliveryIds as [DeliveryId, DeliveryId];
      const t0 = f.clock.now();
      const job = await m.claim(first, t0);
      await f.store.deliveries.complete(claimRef(job), m.succeeded(job, t0));
      const { t: other } = await m.scene();
      const theirs = await m.send(other);
      const counts = await f.store.messages.deliveryStatuses(t, [fanOut.message.id, theirs.message.id]);
      expect(counts).toEqual({ [fanOut.message.id]: { success: 1, pending: 1 } });
      expect(await f.store.messages.deliveryStatuses(t, [])).toEqual({});
      await expect(
        f.store.messages.deliveryStatuses(
          t,
          Array.from({ length: 101 }, () => fanOut.message.id),
        ),
      ).rejects.toThrow(RangeError);
    });

    it('filters by status, event type and since, alone and together', async () => {
      const { t, m1, m2, m3, m4 } = await fourMessages();
      expect(await listed(t, { status: 'success' })).toEqual(ids(m2, m1));
      expect(await listed(t, { status: 'failed' })).toEqual(ids(m3));
      expect(await listed(t, { status: 'pending' })).toEqual(ids(m4));
      expect(await listed(t, { status: 'retrying' })).toEqual([]);
      expect(await listed(t, { eventType: 'user.created' })).toEqual(ids(m4, m2));
      expect(await listed(t, { since: m3.message.createdAt })).toEqual(ids(m4, m3));
      expect(await listed(t, { since: m3.message.createdAt + 1 })).toEqual(ids(m4));
      expect(await listed(t, { status: 'success', eventType: 'user.created' })).toEqual(ids(m2));
      expect(await listed(t, { status: 'success', since: m2.message.createdAt, eventType: 'invoice.paid' })).toEqual([]);
    });

    it('q matches part of the message id, event type, consumer external id or key, ignoring case', async () => {
      const { t, m1, m2, m3, m4 } = await fourMessages();
      expect(await listed(t, { q: m3.message.id.slice(-10).toLowerCase() })).toEqual(ids(m3));
      expect(await listed(t, { q: 'VOICE.PA' })).toEqual(ids(m3, m1));
      expect(await listed(t, { q: 'lobe' })).toEqual(ids(m2));
      expect(await listed(t, { q: 'ACME-' })).toEqual(ids(m4, m3, m1));
      expect(await listed(t, { q: 'order_2' })).toEqual(ids(m3));
      expect(await listed(t, { q: 'lai' })).toEqual(ids(m4));
      expect(await listed(t, { q: 'acme-', status: 'failed' })).toEqual(ids(m3));
    });

    it('q never searches the payload', async () => {
      const { t } = await fourMessages();
      expect(await listed(t, { q: 'needle' })).toEqual([]);
    });

    it('q takes % and _ literally', async () => {
      const { t, m1, m3 } = await fourMessages();
      expect(await listed(t, { q: '%' })).toEqual(ids(m1));
      expect(await listed(t, { q: '100%' })).toEqual(ids(m1));
      expect(await listed(t, { q: 'der_2' })).toEqual(ids(m3));
      // As wildcards these would match 'order-100%' and 'ORDER_200'.
      expect(await listed(t, { q: 'order_1' })).toEqual([]);
      expect(await listed(t, { q: 'order%200' })).toEqual([]);
    });

    it('pages with limit and afterId, also under a filter', async () => {
      const { t, m1, m2, m3, m4 } = await fourMessages();
      expect(await listed(t, { limit: 2 })).toEqual(ids(m4, m3));
      expect(await listed(t, { limit: 2, afterId: m3.message.id })).toEqual(ids(m2, m1));
      expect(await listed(t, { limit: 2, afterId: m1.message.id })).toEqual([]);
      expect(await listed(t, { limit: 1, afterId: m4.message.id, status: 'success' })).toEqual(ids(m2));
      expect(await listed(t, { limit: 10, afterId: newId('message', f.clock) })).toEqual(ids(m4, m3, m2, m1));
    });
  });

  describe('messages: get', () => {
    it('returns the message with its payload, consumer and deliveries with attempts, oldest first', async () => {
      const { t, consumer, endpoint } = await m.scene();
      const second = await m.hook(t, consumer, { url: 'https://second.example/hook' });
      const sent = await m.send(t, { payload: '{"exact":"text"}' });
      const [d1, d2] = sent.deliveryIds as [DeliveryId, DeliveryId];
      const t0 = f.clock.now();
      const job = await m.claim(d1, t0);
      const failure = m.failed(job, t0, t0 + SECOND);
      await f.store.deliveries.complete(claimRef(job), failure);
      const retry = await m.claim(d1, t0 + SECOND);
      const success = m.succeeded(retry, t0 + 2 * SECOND);
      await f.store.deliveries.complete(claimRef(retry), success);

      const detail = await f.store.messages.get(t, sent.message.id);
      expect(detail?.message).toEqual({ ...sent.message, payload: '{"exact":"text"}', status: 'pending' });
      expect(detail?.consumer).toEqual({ id: consumer.id, externalId: consumer.externalId, name: consumer.name });
      expect(detail?.deliveries.map((d) => [d.delivery.id, d.delivery.endpointId, d.delivery.status])).toEqual([
        [d1, endpoint.id, 'success'],
        [d2, second.id, 'pending'],
      ]);
      expect(detail?.deliveries[0]?.attempts).toEqual([failure.attempt, success.attempt]);
      expect(detail?.deliveries[1]?.attempts).toEqual([]);
    });

    it('returns null for an unknown message', async () => {
      const { t } = await m.scene();
      await m.send(t);
      expect(await f.store.messages.get(t, newId('message', f.clock))).toBeNull();
    });
  });

  describe('messages: deleteBefore', () => {
    it('removes messages created before the cutoff (a month start: the oldest retained month) with their deliveries and attempts, in steps', async () => {
      const { t, endpoint } = await m.scene();
      const old = [];
      // The month before the cutoff (December 2000), to its last instant; kept: the cutoff's own month.
      for (let i = 0; i < 3; i++) {
        const at = ANCIENT - DAY + i * SECOND;
        const sent = await m.send(t, { createdAt: at });
        const job = await m.claim(m.only(sent), at + SECOND);
        await f.store.deliveries.complete(claimRef(job), m.failed(job, at + 2 * SECOND));
        old.push(sent);
      }
      const last = await m.send(t, { createdAt: ANCIENT - 1 });
      old.push(last);
      const kept = await m.send(t, { createdAt: ANCIENT });
      const keptJob = await m.claim(m.only(kept), ANCIENT + DAY);
      const keptAttempt = m.succeeded(keptJob, ANCIENT + DAY);
      await f.store.deliveries.complete(claimRef(keptJob), keptAttempt);
      const cutoff = ANCIENT;

      // SQLite deletes 2 a call; MongoDB drops December's collections whole in one step (and
      // may take steps to let go of what points into it first): either way, 4 in all, then 0.
      let removed = 0;
      for (let step = 0; step < 10; step++) {
        const n = await f.store.messages.deleteBefore(cutoff, 2);
        if (n === 0) break;
        removed += n;
      }
      expect(removed).toBe(4);
      expect(await f.store.messages.deleteBefore(cutoff, 2)).toBe(0);

      for (const sent of old) {
        expect(await f.store.messages.get(t, sent.message.id)).toBeNull();
        expect(await f.store.deliveries.get(t, m.only(sent))).toBeNull();
      }
      expect(await f.store.deliveries.recentAttempts(t, endpoint.id, 10)).toEqual([keptAttempt.attempt]);
      expect((await f.store.messages.get(t, kept.message.id))?.deliveries[0]?.attempts).toEqual([keptAttempt.attempt]);
      expect(await listed(t, {})).toEqual(ids(kept));
    });
  });
}
