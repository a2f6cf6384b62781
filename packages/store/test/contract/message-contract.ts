import { claimRef } from '../../src/ports/delivery-port.ts';
import { PlanLimitError, thousands, USAGE_NOTICE_FLOOR, utcMonth, type Message, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import type { UsageCounter } from '../../src/ports/message-port.ts';
import type { Fixtures } from './fixtures.ts';
import { DAY, MessageFixtures } from './message-fixtures.ts';

/** Contract of MessageRepo.create: fan-out, consumer creation, idempotency and usage counters. */
export function describeMessageContract(f: Fixtures): void {
  const m = new MessageFixtures(f);
  const counter = (t: Tenant, name: string, overrides: Partial<UsageCounter> = {}): UsageCounter => ({
    key: `${name}:${t.orgId}:${t.env}`,
    limit: null,
    increment: true,
    expiresAt: f.clock.now() + 30 * DAY,
    ...overrides,
  });

  describe('messages: create', () => {
    it('makes one pending delivery, due at creation, per endpoint that takes the event type and is not disabled', async () => {
      const t = await f.tenant();
      const consumer = await f.consumer(t, 'customer-1');
      const bystander = await f.consumer(t, 'someone-else');
      const every = await m.hook(t, consumer, { url: 'https://a.example/every' });
      const listed = await m.hook(t, consumer, { url: 'https://a.example/listed', eventTypes: ['user.created', 'invoice.paid'] });
      await m.hook(t, consumer, { eventTypes: ['user.created'] });
      await m.hook(t, consumer, { eventTypes: ['invoice'] });
      await m.hook(t, consumer, { status: 'disabled' });
      const paused = await m.hook(t, consumer, { url: 'https://a.example/paused', status: 'paused' });
      await m.hook(t, bystander);

      const input = m.newMessage({ eventType: 'invoice.paid', idempotencyKey: 'key-1' });
      const sent = await f.store.messages.create(t, input);

      const message: Message = {
        id: input.id,
        consumerId: consumer.id,
        eventType: 'invoice.paid',
        payload: input.payload,
        idempotencyKey: 'key-1',
        orderingKey: null,
        createdAt: input.createdAt,
        status: 'pending',
      };
      expect(sent).toMatchObject({ message, created: true, counters: {} });
      const detail = await f.store.messages.get(t, input.id);
      expect(detail?.message).toEqual(message);
      expect(detail?.consumer).toEqual({ id: consumer.id, externalId: 'customer-1', name: consumer.name });
      const deliveries = detail?.deliveries.map((d) => d.delivery) ?? [];
      expect(deliveries.map((d) => [d.endpointId, d.url])).toEqual([
        [every.id, every.url],
        [listed.id, listed.url],
        [paused.id, paused.url],
      ]);
      expect(deliveries.map((d) => d.id)).toEqual(sent.deliveryIds);
      for (const d of deliveries) {
        expect(d).toMatchObject({
          messageId: input.id,
          status: 'pending',
          attemptCount: 0,
          policyAttempts: 0,
          nextAttemptAt: input.createdAt,
          manual: false,
          createdAt: input.createdAt,
        });
      }
      expect(detail?.deliveries.every((d) => d.attempts.length === 0)).toBe(true);
    });

    it('keeps the delivery’s url when the endpoint’s url changes later', async () => {
      const { t, endpoint } = await m.scene();
      const sent = await m.send(t);
      await f.store.endpoints.update(t, endpoint.id, { url: 'https://moved.example/hook' });
      expect((await m.delivery(t, m.only(sent))).url).toBe(endpoint.url);
    });

    it('creates an unknown consumer on the spot: no endpoints, no deliveries, status success', async () => {
      const t = await f.tenant();
      const input = m.newMessage({ consumerExternalId: 'brand-new' });
      const sent = await f.store.messages.create(t, input);
      expect(sent.created).toBe(true);
      expect(sent.deliveryIds).toEqual([]);
      expect(sent.message).toMatchObject({ consumerId: input.newConsumerId, status: 'success' });
      expect(await f.store.consumers.getByExternalId(t, 'brand-new')).toEqual({
        id: input.newConsumerId,
        externalId: 'brand-new',
        name: null,
        createdAt: input.createdAt,
        endpointCount: 0,
      });
      expect((await f.store.messages.get(t, input.id))?.message.status).toBe('success');

      const again = await m.send(t, { consumerExternalId: 'brand-new' });
      expect(again.message.consumerId).toBe(input.newConsumerId);
      expect((await f.store.consumers.list(t, { limit: 10 })).map((c) => c.id)).toEqual([input.newConsumerId]);
    });

    describe('idempotency', () => {
      it('returns the first message for a repeated key: same id, created false, first body wins', async () => {
        const { t } = await m.scene();
        const first = await m.send(t, { idempotencyKey: 'order-7', payload: '{"v":1}' });
        const replay = await m.send(t, { idempotencyKey: 'order-7', payload: '{"v":2}', eventType: 'user.created' });
        expect(replay).toEqual({ message: first.message, deliveryIds: first.deliveryIds, dueDeliveryIds: [], created: false, counters: {} });
        expect(replay.message.payload).toBe('{"v":1}');
        expect((await f.store.messages.list(t, { limit: 10 })).rows.map((s) => s.message.id)).toEqual([first.message.id]);
      });

      it('returns the message as it stands now, with its current status', async () => {
        const { t } = await m.scene();
        const first = await m.send(t, { idempotencyKey: 'k' });
        const job = await m.claim(m.only(first));
        await f.store.deliveries.complete(claimRef(job), m.succeeded(job, f.clock.now()));
        expect((await m.send(t, { idempotencyKey: 'k' })).message).toEqual({ ...first.message, status: 'success' });
      });

      it('keeps keys apart per tenant, also between the environments of one org', async () => {
        const { t } = await m.scene();
        const first = await m.send(t, { idempotencyKey: 'shared' });
        for (const other of [{ orgId: t.orgId, env: 'test' } as const, await f.tenant()]) {
          const sent = await m.send(other, { idempotencyKey: 'shared' });
          expect(sent.created).toBe(true);
          expect(sent.message.id).not.toBe(first.message.id);
        }
      });

      it('matches only messages created at or after idempotencySince', async () => {
        const { t } = await m.scene();
        const first = await m.send(t, { idempotencyKey: 'k' });
        const atBoundary = await m.send(t, { idempotencyKey: 'k', idempotencySince: first.message.createdAt });
        expect(atBoundary).toMatchObject({ created: false, message: { id: first.message.id } });

        const second = await m.send(t, { idempotencyKey: 'k', idempotencySince: first.message.createdAt + 1 });
        expect(second.created).toBe(true);
        expect(second.message.id).not.toBe(first.message.id);
        const third = await m.send(t, { idempotencyKey: 'k', idempotencySince: first.message.createdAt + 1 });
        expect(third).toMatchObject({ created: false, message: { id: second.message.id } });
        // Both in the window (a clock stepped back past the end of the first's): the newest, which
        // the key has answered with since — not the first again.
        const both = await m.send(t, { idempotencyKey: 'k', idempotencySince: 0 });
        expect(both).toMatchObject({ created: false, message: { id: second.message.id } });
      });

      it('never deduplicates messages without a key', async () => {
        const { t } = await m.scene();
        const a = await m.send(t);
        const b = await m.send(t);
        expect([a.created, b.created]).toEqual([true, true]);
        expect((await f.store.messages.list(t, { limit: 10 })).rows.map((s) => s.message.id)).toEqual([b.message.id, a.message.id]);
      });

      it('on a replay only reads the counters: no increment, no limit check', async () => {
        const { t } = await m.scene();
        const limited = counter(t, 'month', { limit: 1 });
        const first = await m.send(t, { idempotencyKey: 'k', counters: [limited] });
        expect(first.counters).toEqual({ [limited.key]: 1 });
        const replay = await m.send(t, { idempotencyKey: 'k', counters: [limited] });
        expect(replay).toMatchObject({ created: false, counters: { [limited.key]: 1 } });
        expect(await f.store.messages.counter(limited.key)).toBe(1);
        await expect(m.send(t, { counters: [limited] })).rejects.toBeInstanceOf(PlanLimitError);
      });
    });

    describe('usage counters', () => {
      it('increments the counters marked so, reads the others, and reports each value', async () => {
        const { t } = await m.scene();
        const month = counter(t, 'month');
        const day = counter(t, 'day');
        expect((await m.send(t, { counters: [month, day] })).counters).toEqual({ [month.key]: 1, [day.key]: 1 });
        const second = await m.send(t, { counters: [month, { ...day, increment: false }] });
        expect(second.counters).toEqual({ [month.key]: 2, [day.key]: 1 });
        expect(await f.store.messages.counter(month.key)).toBe(2);
        expect(await f.store.messages.counter(day.key)).toBe(1);
      });

      it('reads an absent counter as 0', async () => {
        const t = await f.tenant();
        const absent = counter(t, 'never-touched', { increment: false });
        expect(await f.store.messages.counter(absent.key)).toBe(0);
        expect((await m.send(t, { counters: [absent] })).counters).toEqual({ [absent.key]: 0 });
        expect(await f.store.messages.counter(absent.key)).toBe(0);
      });

      it('refuses a send at the limit with PlanLimitError and writes nothing', async () => {
        const { t } = await m.scene();
        const other = counter(t, 'other');
        const daily = counter(t, 'day', { limit: 2, limitMessage: 'test sends are limited to 2 per day' });
        await m.send(t, { counters: [other, daily] });
        await m.send(t, { counters: [other, daily] });
        const before = await f.store.messages.list(t, { limit: 10 });

        const refused = m.newMessage({ idempotencyKey: 'k-refused', counters: [other, daily] });
        const dueBefore = await f.store.deliveries.due(f.clock.now(), 100_000, 100_000);
        const attempt = f.store.messages.create(t, refused);
        await expect(attempt).rejects.toBeInstanceOf(PlanLimitError);
        await expect(attempt).rejects.toThrow('test sends are limited to 2 per day');

        expect(await f.store.messages.list(t, { limit: 10 })).toEqual(before);
        expect(await f.store.messages.get(t, refused.id)).toBeNull();
        // No delivery of it either: nothing more is due than before.
        expect(await f.store.deliveries.due(f.clock.now(), 100_000, 100_000)).toEqual(dueBefore);
        expect(await f.store.messages.counter(daily.key)).toBe(2);
        expect(await f.store.messages.counter(other.key)).toBe(2);
        const unknown = f.store.messages.create(t, m.newMessage({ consumerExternalId: 'not-yet', counters: [daily] }));
        await expect(unknown).rejects.toBeInstanceOf(PlanLimitError);
        expect(await f.store.consumers.getByExternalId(t, 'not-yet')).toBeNull();
        // The refused key was not taken: once the limit allows, the same key makes a message.
        const later = await m.send(t, { idempotencyKey: 'k-refused', counters: [counter(t, 'day', { limit: 3 })] });
        expect(later.created).toBe(true);
      });

      it(`lists an organization for its month's usage from ${thousands(USAGE_NOTICE_FLOOR)} live messages, not at 4,999`, async () => {
        const t = await f.tenant();
        const month = utcMonth(f.clock.now());
        const live: UsageCounter = { key: `live:${t.orgId}:${month}`, limit: null, increment: true, expiresAt: f.clock.now() + 90 * DAY };
        const listed = async () => (await f.store.alerts.liveMonthUsage(month, f.clock.now())).filter((u) => u.orgId === t.orgId);
        for (let i = 0; i < USAGE_NOTICE_FLOOR - 1; i++) await m.send(t, { counters: [live] });
        expect(await f.store.messages.counter(live.key)).toBe(4_999);
        expect(await listed()).toEqual([]);
        await m.send(t, { counters: [live] });
        expect(await listed()).toEqual([{ orgId: t.orgId, used: 5_000 }]);
      }, 120_000);

      it('a send stamped by a clock that jumped ahead past the period’s end clears no other organization’s counter of the period', async () => {
        const a = await f.tenant();
        const b = await f.tenant();
        const month = counter(a, 'month');
        for (let i = 0; i < 3; i++) await m.send(a, { counters: [month] });
        // B's send, stamped 60 days ahead (its own period's counter), then the clock is right again.
        const ahead = f.clock.now() + 60 * DAY;
        await m.send(b, { createdAt: ahead, counters: [counter(b, 'month', { expiresAt: ahead + 30 * DAY })] });
        expect((await m.send(a, { counters: [month] })).counters).toEqual({ [month.key]: 4 });
        expect(await f.store.messages.counter(month.key)).toBe(4);
      });

      it('does not check the limit of a counter it only reads', async () => {
        const t = await f.tenant();
        const readOnly = counter(t, 'read-only', { limit: 0, increment: false });
        await expect(m.send(t, { counters: [readOnly] })).resolves.toMatchObject({ created: true });
      });
    });
  });
}
