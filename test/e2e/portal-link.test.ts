import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';

let gw: Harness;
beforeAll(async () => {
  gw = await startWirehook();
});
afterAll(() => gw.close());

describe('POST /v1/consumers/{id}/portal (before the portal service exists)', () => {
  it('checks input, the consumer and the plan, then answers 501', async () => {
    const free = await gw.tenant({ plan: 'free' });
    const c = (await free.api.post('/v1/consumers', { external_id: 'p' })).body.id;
    expect((await free.api.post(`/v1/consumers/${c}/portal`, {})).body.error).toBe('plan_limit');
    expect((await free.api.post(`/v1/consumers/${c}/portal`, {})).status).toBe(402);

    const paid = await gw.tenant({ plan: 'starter' });
    const pc = (await paid.api.post('/v1/consumers', { external_id: 'p' })).body.id;
    const bad = await paid.api.post(`/v1/consumers/${pc}/portal`, { frame_origin: 'https://app.example.com/path' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^frame_origin: must be an origin/);
    expect((await paid.api.post(`/v1/consumers/${pc}/portal`, { locale: 'fr' })).status).toBe(422);
    const res = await paid.api.post(`/v1/consumers/${pc}/portal`, { frame_origin: 'https://app.example.com', locale: 'ja' });
    expect(res.status).toBe(501);
    expect(res.body.error).toBe('not_implemented');
    expect((await paid.api.post(`/v1/consumers/${c}/portal`)).status).toBe(404);
  });
});
