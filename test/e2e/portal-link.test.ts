// Portal links and the page's server side, through the public API and the portal's port:
// the link (plan, environment, input), the token (hashed, 15 minutes, the only credential),
// the page's headers (frame-ancestors from the link, no referrer, no cookies), the expired
// page in the link's language, and the token API scoped to the link's consumer.
// The token API's scope and the portal's trial sends are in portal-token-api.test.ts; the
// set-up they share in portal-link-fixture.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPortalToken } from '@wirehook/core';
import { createLogger } from '@wirehook/platform';
import { jsonLines } from '@wirehook/testkit';
import { describe, expect, it, vi } from 'vitest';
import { startWirehook } from '../support/harness.ts';
import { link, page, portalApi, spans, t, usePortalWirehook, wh } from '../support/portal-link-fixture.ts';

usePortalWirehook();

describe('POST /v1/consumers/{id}/portal', () => {
  it('checks plan, input and environment; answers 201 with a 15-minute URL under PORTAL_PUBLIC_URL', async () => {
    const free = await wh.tenant({ plan: 'free' });
    const fc = (await free.api.post('/v1/consumers', { external_id: 'p' })).body.id;
    expect((await free.api.post(`/v1/consumers/${fc}/portal`, {})).body.error).toBe('plan_limit');
    expect((await free.api.post(`/v1/consumers/${fc}/portal`, {})).status).toBe(402);

    const c = (await t.api.post('/v1/consumers', { external_id: 'link-1' })).body.id;
    const bad = await t.api.post(`/v1/consumers/${c}/portal`, { frame_origin: 'https://app.example.com/path' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^frame_origin: must be an origin/);
    expect((await t.api.post(`/v1/consumers/${c}/portal`, { locale: 'fr' })).status).toBe(422);
    const testKey = await wh.key(t.orgId, { env: 'test' });
    expect((await testKey.api.post(`/v1/consumers/${c}/portal`, {})).status).toBe(404); // another environment's consumer

    const made = await t.api.post(`/v1/consumers/${c}/portal`, { frame_origin: 'https://app.example.com', locale: 'ja' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ url: expect.stringMatching(/^http:\/\/localhost:8081\/l\/pt_[A-Za-z0-9_-]{32}$/), expires_at: wh.clock.now() + 15 * 60_000 });
  });

  it('the token is stored only as its hash', async () => {
    const c = (await t.api.post('/v1/consumers', { external_id: 'link-hash' })).body.id;
    const { token } = await link(c);
    expect(await wh.store.portalTokens.find(hashPortalToken(token))).toMatchObject({ consumerId: c, tenant: { orgId: t.orgId, env: 'live' } });
    for (const file of ['wirehook.sqlite', 'wirehook.sqlite-wal']) {
      expect(readFileSync(join(wh.dataDir, file)).includes(token.slice(3))).toBe(false);
    }
  });
});

describe('the page', () => {
  it('answers the link with the link’s frame-ancestors, no referrer, no cookies, and its language; a reload URL works the same', async () => {
    const c = (await t.api.post('/v1/consumers', { external_id: 'page-1' })).body.id;
    const framed = await link(c, { frame_origin: 'https://dash.example.com', locale: 'ja' });
    const res = await page(`/l/${framed.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<html lang="ja">');
    expect(html).toContain(`<meta name="wirehook-session" content="${hashPortalToken(framed.token)}">`);
    expect(html).not.toContain(framed.token);
    expect(html).not.toMatch(/<script>|style=/); // nothing inline: the CSP allows only our files
    const script = /<script type="module" src="([^"]+)">/.exec(html)![1]!;
    const asset = await page(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable|immutable.*max-age=31536000/);

    const reload = await page(`/r/${hashPortalToken(framed.token)}?theme=dark`);
    expect(reload.status).toBe(200);
    expect(reload.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
    expect(await reload.text()).toContain('data-theme="dark"');

    // The token is the only credential: it is in no span (the path is traced as /l/[token]).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const paths = spans.spans().map((span) => String(span.attributes['url.path'] ?? ''));
    expect(paths).toContain('/l/[token]');
    expect(paths.join(' ')).not.toContain(framed.token);

    const unframed = await link(c);
    expect((await page(`/l/${unframed.token}`, { 'accept-language': 'en-US' })).headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('an expired link says so in its language (with its frame origin, so the parent shows it); an unknown one in the browser’s', async () => {
    const c = (await t.api.post('/v1/consumers', { external_id: 'page-2' })).body.id;
    const ja = await link(c, { locale: 'ja', frame_origin: 'https://dash.example.com' });
    wh.clock.advance(15 * 60_000);
    const expired = await page(`/l/${ja.token}`);
    expect(expired.status).toBe(410);
    expect(expired.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
    expect(await expired.text()).toContain('このリンクは有効期限が切れています');
    expect((await portalApi(ja.token, 'GET', '/session')).body).toEqual({ error: 'unauthorized', message: 'this portal link has expired; ask for a new link' });

    const unknown = await page('/l/pt_nope', { 'accept-language': 'ja,en;q=0.5' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('このリンクは無効です');
    expect(await (await page('/l/pt_nope', { 'accept-language': 'de-DE' })).text()).toContain('This link is not valid');
  });
});

describe('logs', () => {
  it('a request on /l/<token> or /r/<session> that fails is logged without the token or session', async () => {
    const { destination, lines } = jsonLines();
    const logger = createLogger({ name: 'wirehook', instance: 'test-1', level: 'info', format: 'json', destination });
    const logged = await startWirehook({ logger });
    try {
      const tenant = await logged.tenant({ plan: 'starter' });
      const c = (await tenant.api.post('/v1/consumers', { external_id: 'log-1' })).body.id;
      const token = ((await tenant.api.post(`/v1/consumers/${c}/portal`, {})).body.url as string).split('/l/')[1]!;
      const session = hashPortalToken(token);
      const find = vi.spyOn(logged.store.portalTokens, 'find').mockRejectedValue(new Error(`store unavailable while reading ${token} (${session})`));
      try {
        for (const path of [`/l/${token}`, `/r/${session}`]) {
          expect((await fetch(`${logged.embedded.portalUrl()}${path}`)).status).toBe(500);
        }
      } finally {
        find.mockRestore();
      }
      const failures = lines.filter((line) => line['msg'] === 'request failed');
      expect(failures.map((line) => line['path'])).toEqual(['/l/[token]', '/r/[session]']);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(token);
      expect(text).not.toContain(session);
    } finally {
      await logged.close();
    }
  });
});

describe('rate limits', () => {
  it('a portal link spends its consumer’s own budget, never the sender’s', async () => {
    const c = (await t.api.post('/v1/consumers', { external_id: 'rate-1' })).body.id;
    const { token } = await link(c);
    const res = await fetch(`${wh.embedded.portalUrl()}/api/endpoints`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    const before = Number((await t.api.get('/v1/consumers')).headers.get('x-ratelimit-remaining'));
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${wh.embedded.portalUrl()}/api/endpoints`, { headers: { authorization: `Bearer ${token}` } })));
    const after = Number((await t.api.get('/v1/consumers')).headers.get('x-ratelimit-remaining'));
    expect(after).toBe(before - 1); // only the sender's own request counted
  });
});
