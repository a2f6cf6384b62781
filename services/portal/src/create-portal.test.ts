// The portal's page routes: a link's page (`/l/<token>`) and its reloads (`/r/<hash>`), the
// answers for unknown and expired links, the static files, and no credential in the logs.
import { hashPortalToken } from '@wirehook/core';
import type { Store } from '@wirehook/store';
import { eventually, recordSpans } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalScene } from './testing/portal-scene.ts';

let scene: PortalScene;
beforeAll(async () => {
  scene = await PortalScene.start();
});
afterAll(() => scene.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(scene.url(path), { headers, redirect: 'manual' });

async function link(overrides: Parameters<PortalScene['link']>[2] = {}) {
  const { t } = await scene.tenant();
  return scene.link(t, await scene.consumer(t), overrides);
}

describe('GET /l/{token}', () => {
  it("serves the page with the link's frame origin, language and session (the token's hash), and no cookie", async () => {
    const { token, hash } = await link({ frameOrigin: 'https://dash.example.com', locale: 'ja' });
    const page = await get(`/l/${token}?theme=dark`, { 'accept-language': 'en' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
    expect(page.headers.get('set-cookie')).toBeNull();
    const html = await page.text();
    expect(html).toContain('<html lang="ja" data-theme="dark">');
    expect(html).toContain(`<meta name="wirehook-session" content="${hash}">`);
  });

  it('answers 404 for an unknown link, in the browser language, framed by no one', async () => {
    const page = await get('/l/pt_unknown', { 'accept-language': 'ja' });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('このリンクは無効です');
  });

  it('answers 410 from the moment a link expires, keeping its frame origin and language', async () => {
    const { token, expiresAt } = await link({ frameOrigin: 'https://dash.example.com', locale: 'en' });
    scene.clock.set(expiresAt - 1);
    expect((await get(`/l/${token}`)).status).toBe(200);
    scene.clock.set(expiresAt);
    const page = await get(`/l/${token}`, { 'accept-language': 'ja' });
    expect(page.status).toBe(410);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://dash.example.com');
    expect(await page.text()).toContain('This link has expired');
  });
});

describe('GET /r/{session}', () => {
  it("serves a live link's page by its hash; anything else is an unknown link", async () => {
    const { token, hash } = await link();
    expect((await get(`/r/${hash}`)).status).toBe(200);
    expect((await get(`/r/${token}`)).status).toBe(404); // the token itself is not a session
    expect((await get(`/r/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await get(`/r/${hash.toUpperCase()}`)).status).toBe(404);
  });
});

describe('the rest of the server', () => {
  it('serves the built files for a year, answers JSON 404 elsewhere, and /healthz', async () => {
    const script = await get('/assets/main-abc.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // A file of an earlier build: 404, and nothing logged as failed.
    const missing = await get('/assets/main-old.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not_found', message: 'no route GET /assets/main-old.js' });
    expect(scene.logLines.filter((line) => line['msg'] === 'request failed')).toEqual([]);
    const unknown = await get('/nowhere');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'not_found', message: 'no route GET /nowhere' });
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
  });

  it('answers 503 while the front end is not built, for a live link only', async () => {
    const unbuilt = await PortalScene.start({ built: false });
    try {
      const { t } = await unbuilt.tenant();
      const { token } = await unbuilt.link(t, await unbuilt.consumer(t));
      expect((await fetch(unbuilt.url(`/l/${token}`))).status).toBe(503);
      expect((await fetch(unbuilt.url('/l/pt_unknown'))).status).toBe(404);
    } finally {
      await unbuilt.close();
    }
  });
});

it("logs a failed page request without the link's token or session hash", async () => {
  // A store error that quotes what it was asked (the token's hash).
  const failing = await PortalScene.start({
    wrapStore: (store) =>
      ({
        ...store,
        portalTokens: {
          ...store.portalTokens,
          find: async (hash: string) => {
            throw new Error(`lookup of ${hash} timed out`);
          },
        },
      }) as Store,
  });
  try {
    const token = 'pt_secretTokenValue123';
    const hash = hashPortalToken(token);
    const page = await fetch(failing.url(`/l/${token}`));
    expect(page.status).toBe(500);
    expect(await page.json()).toEqual({ error: 'internal', message: 'internal error; it has been logged' });
    expect((await fetch(failing.url(`/r/${hash}`))).status).toBe(500);
    const failed = failing.logLines.filter((line) => line['msg'] === 'request failed');
    expect(failed.map((line) => line['path'])).toEqual(['/l/[token]', '/r/[session]']);
    expect((failed[0]!['err'] as { message: string }).message).toBe('lookup of [token] timed out');
    const logged = JSON.stringify(failing.logLines);
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(hash);
  } finally {
    await failing.close();
  }
});

it("records a page request's span without the link's token or session hash", async () => {
  const recorder = await recordSpans('portal-paths');
  try {
    const { token, hash } = await link();
    expect((await get(`/l/${token}`)).status).toBe(200);
    expect((await get(`/r/${hash}`)).status).toBe(200);
    // Express's routes ignore case; paths of no route hold the credential too.
    expect((await get(`/L/${token}`)).status).toBe(200);
    expect((await get(`/R/${hash}`)).status).toBe(200);
    expect((await get(`//l/${token}`)).status).toBe(404);
    expect((await get(`/l//${token}`)).status).toBe(404);
    await eventually(() => expect(recorder.spans()).toHaveLength(6));
    expect(recorder.spans().map((span) => span.attributes['url.path'])).toEqual([
      '/l/[token]',
      '/r/[session]',
      '/l/[token]',
      '/r/[session]',
      '/l/[token]',
      '/l/[token]',
    ]);
    const recorded = JSON.stringify(recorder.spans().map((span) => [span.name, span.attributes]));
    expect(recorded).not.toContain(token);
    expect(recorded).not.toContain(hash);
  } finally {
    await recorder.stop();
  }
});
