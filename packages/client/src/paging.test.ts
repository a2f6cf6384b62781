// Async iteration over cursor pages: follows next_cursor until null, keeps the filters on each
// page, fetches lazily (breaking early stops), and passes errors through.
import { describe, expect, it } from 'vitest';
import { Wirehook } from './client.ts';
import { fakeFetch, json } from './testing/fake-fetch.ts';

const row = (id: string) => ({
  id,
  event_type: 'a.b',
  consumer: { id: 'con_1', external_id: 'acme', name: null },
  created_at: 1,
  status: 'failed',
  attempts: { count: 1, last_at: 1 },
  endpoint_url: null,
});
const PAGES: Record<string, { items: unknown[]; next_cursor: string | null }> = {
  first: { items: [row('m1'), row('m2')], next_cursor: 'c1' },
  c1: { items: [row('m3'), row('m4')], next_cursor: 'c2' },
  c2: { items: [row('m5')], next_cursor: null },
};
const pages = () => fakeFetch((r) => json(200, PAGES[r.url.searchParams.get('cursor') ?? 'first']));

describe('iterate', () => {
  it('yields every item of every page, following next_cursor until null, with the same filters', async () => {
    const { fetch, requests } = pages();
    const ids: string[] = [];
    for await (const m of new Wirehook({ apiKey: 'k', fetch }).messages.iterate({ status: 'failed', limit: 2 })) ids.push(m.id);
    expect(ids).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(requests.map((r) => Object.fromEntries(r.url.searchParams))).toEqual([
      { status: 'failed', limit: '2' },
      { status: 'failed', limit: '2', cursor: 'c1' },
      { status: 'failed', limit: '2', cursor: 'c2' },
    ]);
  });

  it('pages endpoints too, and goes on past a page with no items but a cursor (only a null cursor ends a list)', async () => {
    const empty: typeof PAGES = { first: { items: [], next_cursor: 'c1' }, c1: { items: [row('ep_1')], next_cursor: null } };
    const { fetch, requests } = fakeFetch((r) => json(200, empty[r.url.searchParams.get('cursor') ?? 'first']));
    const ids: string[] = [];
    for await (const e of new Wirehook({ apiKey: 'k', fetch }).endpoints.iterate({ consumer_id: 'con_1' })) ids.push(e.id);
    expect(ids).toEqual(['ep_1']);
    expect(requests.map((r) => `${r.url.pathname}?${r.url.searchParams}`)).toEqual([
      '/v1/endpoints?consumer_id=con_1',
      '/v1/endpoints?consumer_id=con_1&cursor=c1',
    ]);
  });

  it('fetches a page only when the loop needs it; breaking stops', async () => {
    const { fetch, requests } = pages();
    for await (const m of new Wirehook({ apiKey: 'k', fetch }).consumers.iterate({ limit: 2 })) {
      expect(m.id).toBe('m1');
      break;
    }
    expect(requests).toHaveLength(1);
  });

  it('a cursor that comes back stops the loop with an error instead of paging forever', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { items: [row('m1')], next_cursor: 'same' }));
    const ids: string[] = [];
    const loop = (async () => {
      for await (const m of new Wirehook({ apiKey: 'k', fetch }).messages.iterate()) ids.push(m.id);
    })();
    await expect(loop).rejects.toThrow(/cursor same twice/);
    expect(requests).toHaveLength(2);
  });

  it('starts from a given cursor', async () => {
    const { fetch } = pages();
    const ids: string[] = [];
    for await (const c of new Wirehook({ apiKey: 'k', fetch }).consumers.iterate({ cursor: 'c1' })) ids.push(c.id);
    expect(ids).toEqual(['m3', 'm4', 'm5']);
  });

  it('an error on a later page is thrown from the loop, after the earlier items', async () => {
    const { fetch } = fakeFetch((r) =>
      r.url.searchParams.has('cursor') ? json(422, { error: 'invalid', message: 'cursor: outside the retention window' }) : json(200, PAGES['first']),
    );
    const ids: string[] = [];
    const loop = (async () => {
      for await (const m of new Wirehook({ apiKey: 'k', fetch }).messages.iterate()) ids.push(m.id);
    })();
    await expect(loop).rejects.toMatchObject({ code: 'invalid', message: 'cursor: outside the retention window' });
    expect(ids).toEqual(['m1', 'm2']);
  });
});

describe('retry-after', () => {
  it('is at least 1 second: a proxy saying 0 (or nothing useful) never makes a retrying client hammer the API', async () => {
    const { retryAfter } = await import('./errors.ts');
    expect(retryAfter(new Headers({ 'retry-after': '0' }))).toBe(1);
    expect(retryAfter(new Headers({ 'retry-after': 'soon' }))).toBe(1);
    expect(retryAfter(new Headers({ 'retry-after': '7' }))).toBe(7);
  });
});

describe('redirects', () => {
  it('are not followed: a 301 in front of the API is an error, never a POST turned GET', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { id: 'msg_1', deliveries: 1 }));
    await new Wirehook({ apiKey: 'k', fetch }).messages.send({ consumer: 'c', event_type: 'a.b', payload: {} });
    expect(requests[0]?.redirect).toBe('error');
  });
});
