import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

let gw: Harness;
let t: TestTenant;

beforeAll(async () => {
  gw = await startWirehook();
  t = await gw.tenant();
});
afterAll(() => gw.close());

describe('event types', () => {
  // The spec's fields, and the catalog's (issue 45) as a type without a catalog entry has them.
  const CATALOG_DEFAULTS = { archived_at: null, validation: 'none', deprecated: false, version: 1, schema: null, examples: [] };

  it('creates (201) and lists ordered by name, without paging', async () => {
    for (const name of ['user.deleted', 'invoice.paid', 'user.created']) {
      const res = await t.api.post('/v1/event-types', { name, description: `${name} happened` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ...CATALOG_DEFAULTS, name, description: `${name} happened`, updated_at: expect.any(Number) });
    }
    expect((await t.api.post('/v1/event-types', { name: 'a:b_c-d.e' })).body).toEqual({
      ...CATALOG_DEFAULTS,
      name: 'a:b_c-d.e',
      description: null,
      updated_at: expect.any(Number),
    });
    const list = await t.api.get('/v1/event-types');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: expect.any(Array) });
    expect(list.body.items.map((e: any) => e.name)).toEqual(['a:b_c-d.e', 'invoice.paid', 'user.created', 'user.deleted']);
  });

  it('answers 409 conflict for a name that exists', async () => {
    await t.api.post('/v1/event-types', { name: 'order.shipped' });
    const res = await t.api.post('/v1/event-types', { name: 'order.shipped', description: 'other' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'conflict', message: expect.stringContaining('order.shipped') });
  });

  it.each([
    [{ name: 'has space' }, 'name: may contain only letters, digits and _ . : -'],
    [{ name: 'é' }, 'name: may contain only letters, digits and _ . : -'],
    [{ name: 'n'.repeat(101) }, 'name: must be at most 100 characters'],
    [{ name: '' }, 'name: must not be empty'],
    [{}, 'name: is required'],
    [{ name: 'ok', description: 'd'.repeat(201) }, 'description: must be at most 200 characters'],
  ])('refuses %j with 422', async (body, message) => {
    const res = await t.api.post('/v1/event-types', body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'invalid', message });
  });

  it('accepts a 100-character name', async () => {
    expect((await t.api.post('/v1/event-types', { name: 'n'.repeat(100) })).status).toBe(201);
  });
});
