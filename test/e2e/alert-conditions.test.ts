// GET/PUT /v1/alert-conditions: defaults, partial updates, one set per organization (both
// environments), input refused with the field named, scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';

let wh: Harness;
beforeAll(async () => {
  wh = await startWirehook();
});
afterAll(() => wh.close());

describe('/v1/alert-conditions', () => {
  it('defaults; a partial PUT changes only what it names; both environments see the same', async () => {
    const t = await wh.tenant();
    expect((await t.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '60m', automatic_stop: true, pending_retries: 1000, usage: 80 });
    const put = await t.api.put('/v1/alert-conditions', { delivery_failure: '5m' });
    expect(put).toMatchObject({ status: 200, body: { delivery_failure: '5m', automatic_stop: true, pending_retries: 1000, usage: 80 } });
    await t.api.put('/v1/alert-conditions', { usage: 100, automatic_stop: false });
    const testKey = await wh.key(t.orgId, { env: 'test' });
    expect((await testKey.api.get('/v1/alert-conditions')).body).toEqual({ delivery_failure: '5m', automatic_stop: false, pending_retries: 1000, usage: 100 });
    const other = await wh.tenant();
    expect((await other.api.get('/v1/alert-conditions')).body.delivery_failure).toBe('60m');
  });

  it('anything else is 422 naming the field; scopes apply', async () => {
    const t = await wh.tenant();
    const cases: [unknown, RegExp][] = [
      [{ delivery_failure: '10m' }, /^delivery_failure: must be one of first, 5m, 15m, 60m/],
      [{ pending_retries: 500 }, /^pending_retries: must be one of 100, 1000, 10000/],
      [{ usage: '80' }, /^usage: must be one of 50, 80, 100/],
      [{ automatic_stop: 'yes' }, /^automatic_stop: must be true or false/],
      [{ colour: 'red' }, /colour/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.put('/v1/alert-conditions', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api.get('/v1/alert-conditions')).body.delivery_failure).toBe('60m'); // nothing half-written
    const reader = await wh.key(t.orgId, { scopes: ['logs:read'] });
    expect((await reader.api.get('/v1/alert-conditions')).status).toBe(200);
    expect((await reader.api.put('/v1/alert-conditions', { usage: 50 })).status).toBe(403);
  });
});
