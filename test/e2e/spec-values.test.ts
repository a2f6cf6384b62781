// The spec's numbers at their edges, each just inside and just outside, written out here as the
// spec states them (never imported from the code under test): the 24-hour rotation overlap,
// the 15-minute portal link, the 7-day search window, the test environment's 1,000 sends per
// UTC day (a calendar day, not a rolling 24 hours), and the Idempotency-Key's 1 to 256
// characters. (The 15-second attempt timeout: packages/egress/src/attempt-timeout.test.ts;
// the plans' per-minute budgets: rate-limit.test.ts.)
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver, verifyAt } from '../support/receivers.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant({ plan: 'starter' });
  rx = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await rx.receiver.close();
});

let n = 0;
/** A consumer with one endpoint on the receiver. */
async function endpoint(): Promise<{ consumer: string; consumerId: string; id: string; secret: string }> {
  const consumer = `spec-${++n}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer })).body.id;
  const made = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).body;
  return { consumer, consumerId, id: made.id, secret: made.secret };
}
/** Sends a message to `consumer` and waits for its request at the receiver. */
async function delivered(consumer: string) {
  const id = (await t.api.post('/v1/messages', { consumer, event_type: 'spec.edge', payload: {} })).body.id as string;
  await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1));
  return rx.receiver.requests.find((r) => r.headers['webhook-id'] === id)!;
}

describe('the spec’s values at their edges', () => {
  it('rotation: the old secret still signs at 23:59:59 after it, no longer at 24:00:01', async () => {
    const ep = await endpoint();
    const rotated = (await t.api.post(`/v1/endpoints/${ep.id}/rotate-secret`)).body.secret as string;
    const rotatedAt = wh.clock.now();

    await wh.advance(rotatedAt + 24 * HOUR - SECOND - wh.clock.now());
    const inside = await delivered(ep.consumer);
    expect(inside.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyAt(rx.receiver, ep.secret, inside, wh.clock.now())).toBeTruthy();
    expect(verifyAt(rx.receiver, rotated, inside, wh.clock.now())).toBeTruthy();

    await wh.advance(2 * SECOND); // 24:00:01 after the rotation
    const outside = await delivered(ep.consumer);
    expect(outside.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyAt(rx.receiver, rotated, outside, wh.clock.now())).toBeTruthy();
    expect(() => verifyAt(rx.receiver, ep.secret, outside, wh.clock.now())).toThrow();
  });

  it('a portal link opens at 14:59 after it was made, and has expired at 15:00', async () => {
    const { consumerId } = await endpoint();
    const made = (await t.api.post(`/v1/consumers/${consumerId}/portal`, {})).body;
    const createdAt = wh.clock.now();
    expect(made.expires_at).toBe(createdAt + 15 * MINUTE);
    const token = (made.url as string).split('/l/')[1]!;
    const session = () => fetch(`${wh.embedded.portalUrl()}/api/session`, { headers: { authorization: `Bearer ${token}` } });
    const page = () => fetch(`${wh.embedded.portalUrl()}/l/${token}`);

    wh.clock.advance(14 * MINUTE + 59 * SECOND);
    expect((await session()).status).toBe(200);
    expect((await page()).status).not.toBe(410);
    wh.clock.advance(SECOND); // 15:00
    expect(await (await session()).json()).toEqual({ error: 'unauthorized', message: 'this portal link has expired; ask for a new link' });
    expect((await page()).status).toBe(410);
  });

  it('filters without since: a message exactly 7 days old is listed, 7 days and 1 ms old is not', async () => {
    const type = `spec.window.${++n}`;
    const id = (await t.api.post('/v1/messages', { consumer: 'spec-window', event_type: type, payload: {} })).body.id;
    const listed = async () => (await t.api.get(`/v1/messages?event_type=${type}`)).body.items.map((m: { id: string }) => m.id);
    wh.clock.advance(7 * DAY);
    expect(await listed()).toEqual([id]);
    wh.clock.advance(1);
    expect(await listed()).toEqual([]);
    expect((await t.api.get(`/v1/messages?event_type=${type}&since=${wh.clock.now() - 8 * DAY}`)).body.items).toHaveLength(1);
  });

  it('the test environment’s 1,000 sends a UTC day: refused until 23:59:59.999, sent again at 00:00 UTC (a calendar day, not 24 hours since)', async () => {
    // 23:00 UTC: all 1,000 are sent within the day's last hour.
    wh.clock.advance(Math.floor(wh.clock.now() / DAY) * DAY + DAY + 23 * HOUR - wh.clock.now());
    const testKey = await wh.key(t.orgId, { env: 'test' });
    const send = () => testKey.api.post('/v1/messages', { consumer: 'spec-daily', event_type: 'spec.daily', payload: {} });
    for (let sent = 0; sent < 1_000; sent += 50) {
      for (const res of await Promise.all(Array.from({ length: 50 }, send))) expect(res.status).toBe(202);
    }
    const refused = await send();
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: 'plan_limit', message: 'test and trial sends are limited to 1,000 per environment per UTC day' });

    wh.clock.advance(Math.floor(wh.clock.now() / DAY) * DAY + DAY - 1 - wh.clock.now()); // 23:59:59.999
    expect((await send()).status).toBe(402);
    wh.clock.advance(1); // 00:00:00.000 UTC, an hour after the sends
    expect((await send()).status).toBe(202);
  }, 60_000);

  it('Idempotency-Key: empty is refused (1 to 256 characters), 1 and 256 characters are keys, 257 is refused', async () => {
    const send = (key: string) => t.api.post('/v1/messages', { consumer: 'spec-idem', event_type: 'spec.idem', payload: {} }, { 'idempotency-key': key });
    const empty = await send('');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ error: 'invalid', message: expect.stringMatching(/^Idempotency-Key: /) });
    for (const key of ['k', 'k'.repeat(256)]) {
      const first = await send(key);
      expect(first.status).toBe(202);
      expect((await send(key)).body.id).toBe(first.body.id);
    }
    expect((await send('k'.repeat(257))).status).toBe(422);
  });
});
