import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '@wirehook/core';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';

let gw: Harness;
let t: TestTenant;

beforeAll(async () => {
  gw = await startWirehook();
  t = await gw.tenant({ plan: 'business' });
});
afterAll(() => gw.close());

describe('POST /v1/consumers', () => {
  it('creates a consumer (201) with the spec fields', async () => {
    const res = await t.api.post('/v1/consumers', { external_id: 'cust_42', name: 'Acme Corp' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^con_/),
      external_id: 'cust_42',
      name: 'Acme Corp',
      created_at: gw.clock.now(),
      endpoint_count: 0,
    });
  });

  it('answers 409 conflict for a duplicate external_id', async () => {
    await t.api.post('/v1/consumers', { external_id: 'dup' });
    const res = await t.api.post('/v1/consumers', { external_id: 'dup', name: 'again' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'conflict', message: 'a consumer with external_id "dup" already exists' });
  });

  it.each([
    [{ external_id: 'x'.repeat(201) }, 'external_id: must be at most 200 characters'],
    [{ external_id: '' }, 'external_id: must not be empty'],
    [{ name: 'n' }, 'external_id: is required'],
    [{ external_id: 7 }, 'external_id: Invalid input: expected string, received number'],
    [{ external_id: 'ok', name: 'n'.repeat(201) }, 'name: must be at most 200 characters'],
    [{ external_id: 'ok', nickname: 'n' }, 'unknown field "nickname"'],
    ['[1,2]', 'request body must be a JSON object'],
    ['{"external_id": ', 'request body is not valid JSON'],
  ])('answers 422 invalid for %j', async (body, message) => {
    const res = await t.api.post('/v1/consumers', body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'invalid', message });
  });

  it('accepts exactly 200 characters', async () => {
    expect((await t.api.post('/v1/consumers', { external_id: 'e'.repeat(200), name: 'n'.repeat(200) })).status).toBe(201);
  });

  it('answers 413 too_large for a body over 1.1 MB, before reading it all', async () => {
    const big = JSON.stringify({ external_id: 'big', name: 'x'.repeat(1_100_001) });
    const res = await t.api.post('/v1/consumers', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'too_large', message: 'request body is larger than 1,100,000 bytes (1.1 MB)' });
    // Just under the limit is parsed (and then refused for the name's length, not its size).
    const under = JSON.stringify({ external_id: 'big', name: 'x'.repeat(1_099_950) });
    expect((await t.api.post('/v1/consumers', under)).status).toBe(422);
  });
});

describe('GET /v1/consumers', () => {
  it('pages newest first with limit and cursor until next_cursor is null', async () => {
    const fresh = await gw.tenant();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      gw.clock.advance(1);
      made.push((await fresh.api.post('/v1/consumers', { external_id: `p${i}` })).body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await fresh.api.get(`/v1/consumers?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((c: { id: string }) => c.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
  });

  it('defaults to 50 items and counts endpoints', async () => {
    const fresh = await gw.tenant();
    for (let i = 0; i < 51; i++) await fresh.api.post('/v1/consumers', { external_id: `d${i}` });
    const res = await fresh.api.get('/v1/consumers');
    expect(res.body.items).toHaveLength(50);
    expect(res.body.next_cursor).toEqual(expect.any(String));
    const c = res.body.items[0];
    await fresh.api.post('/v1/endpoints', { consumer_id: c.id, url: 'https://localhost/a' });
    const again = await fresh.api.get('/v1/consumers?limit=1');
    expect(again.body.items[0]).toMatchObject({ id: c.id, endpoint_count: 1 });
  });

  it.each(['0', '101', 'abc', '-1'])('refuses limit=%s with 422', async (limit) => {
    const res = await t.api.get(`/v1/consumers?limit=${limit}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid');
    expect(res.body.message).toMatch(/^limit: /);
  });

  it('refuses a forged cursor and one outside the retention window with 422', async () => {
    const forged = await t.api.get('/v1/consumers?cursor=bm9wZQ');
    expect(forged.status).toBe(422);
    expect(forged.body.message).toBe('cursor: not a cursor returned by this list');

    const page = await t.api.get('/v1/consumers?limit=1');
    const cursor = page.body.next_cursor as string;
    expect((await t.api.get(`/v1/consumers?cursor=${cursor}`)).status).toBe(200);
    const fourMonths = 4 * 31 * 24 * 60 * 60 * 1000;
    gw.clock.advance(fourMonths);
    try {
      const stale = await t.api.get(`/v1/consumers?cursor=${cursor}`);
      expect(stale.status).toBe(422);
      expect(stale.body.message).toMatch(/retention window/);
    } finally {
      gw.clock.advance(-fourMonths);
    }
    const future = encodeCursor(page.body.items[0].id, gw.clock.now() + fourMonths);
    expect((await t.api.get(`/v1/consumers?cursor=${future}`)).status).toBe(422);
  });
});

describe('unknown routes', () => {
  it('answer 404 JSON', async () => {
    const res = await t.api.get('/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'no route GET /v1/nope' });
    expect((await gw.anonymous.get('/elsewhere')).body.error).toBe('not_found');
  });
});
