// The suite must pass on any day of a month: ids carry the time of the clock that made them,
// so a clock that moved ahead and back (a test, NTP, a restored VM) never makes a new message
// look like next month's, which retention would refuse as outside the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

const DAY = 24 * 60 * 60 * 1000;
let wh: Harness;
let t: TestTenant;

beforeAll(async () => {
  wh = await startWirehook({ startAt: Date.UTC(2026, 10, 23, 12) });
  t = await wh.tenant();
});
afterAll(() => wh.close());

const send = async () => {
  const res = await t.api.post('/v1/messages', { consumer: 'acme', event_type: 'order.created', payload: {} });
  expect(res.status).toBe(202);
  return res.body.id as string;
};
const status = async (id: string) => (await t.api.get(`/v1/messages/${id}`)).status;

describe('month end', () => {
  // The 23rd of a 30-day month (the day this bug was found), the last moment of a 30- and a
  // 31-day month, and the end of February.
  const days = [Date.UTC(2026, 10, 23, 12), Date.UTC(2026, 10, 30, 23, 59, 59, 999), Date.UTC(2026, 11, 31, 23, 59, 59), Date.UTC(2027, 1, 28, 18)];

  for (const day of days) {
    it(`${new Date(day).toISOString()}: a message made after the clock went 8 days ahead and back is readable and kept`, async () => {
      wh.clock.set(day);
      const first = await send();
      wh.clock.advance(8 * DAY); // into next month
      await send();
      wh.clock.set(day);
      const after = await send();
      expect(await status(first)).toBe(200);
      expect(await status(after)).toBe(200);
      const listed = (await t.api.get('/v1/messages?limit=100')).body.items.map((m: { id: string }) => m.id);
      expect(listed).toContain(after);
      await wh.embedded.retention.runOnce();
      expect(await status(after)).toBe(200);
      expect(await status(first)).toBe(200);
    });
  }

  it('a clock that steps back across a month boundary: new ids carry the earlier month and are served', async () => {
    wh.clock.set(Date.UTC(2026, 11, 1, 0, 0, 5));
    const december = await send();
    wh.clock.set(Date.UTC(2026, 10, 30, 23, 59, 58)); // NTP steps back 7 s, into November
    const november = await send();
    expect(await status(november)).toBe(200);
    // Made "in December" by the clock of the time; the spec accepts ids up to the current
    // month, so it is 404 until the clock reaches December again (docs/semantics.md).
    expect(await status(december)).toBe(404);
    wh.clock.set(Date.UTC(2026, 11, 1, 0, 0, 6));
    expect(await status(december)).toBe(200);
    expect(await status(november)).toBe(200);
  });
});
