/// <reference lib="dom" />
// OAuth 2.0 client credentials (`auth`) on the portal's endpoint page, in a real browser against
// a real embedded Wirehook. Set through the form (an http token URL refused first, in the API's
// words under its field), shown without the secret (nowhere in the page), changed without the
// secret (the stored one is kept: the next token request carries it), refused when the client id
// changes without a secret (under the secret's field), refused beside a custom Authorization
// header (under the form), removed after a confirmation naming the token URL. A token server's
// 401 shown on the page in words. Japanese in the dark theme, 360 px wide; a listener endpoint
// gives the reason instead of the form. axe-clean throughout.
import { eventually } from '@wirehook/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { axeViolations, openPortal, portalLink, shot } from '../support/portal-page.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import type { NamedReceiver } from '../support/receivers.ts';

const SECRET = 'portal-secret-7f3a9c1e5b';
const PANEL = 'OAuth 2.0';
let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
// One retry, an hour away: a failed attempt is not repeated while a test reads the receiver's requests.
const once = { retry: { count: 1, interval: '1h' } };

interface AuthShown {
  type: string;
  token_url: string;
  client_id: string;
  scope: string | null;
  audience: string | null;
  token_auth_method: string;
}

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** A consumer (external id `name`) and its one endpoint for each test: no test sees another's deliveries or settings. */
async function scene(name: string) {
  const consumerId = (await t.api.post('/v1/consumers', { external_id: name, name: 'Customer' })).body.id as string;
  const res = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ...once });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  return {
    id,
    send: async (payload: unknown) => expect((await t.api.post('/v1/messages', { consumer: name, event_type: 'order.created', payload })).status).toBe(202),
    shown: async () => {
      const got = await t.api.get(`/v1/endpoints/${id}`);
      expect(got.status).toBe(200);
      return got.body as { auth: AuthShown | null; recent: unknown[] };
    },
    open: async (locale: 'en' | 'ja', theme: 'light' | 'dark', width?: number): Promise<Page> =>
      openPortal(browser, await portalLink(wh, t, consumerId, locale), { theme, locale, width, suffix: `#/endpoints/${id}` }),
  };
}

describe('the portal: OAuth 2.0 client credentials', () => {
  it('sets them (an http token URL refused first), never shows the secret, keeps it, refuses a new client id without one, removes (en)', async () => {
    const e = await scene('oauth-form');
    const page = await e.open('en', 'light');
    const panel = page.getByRole('region', { name: PANEL });
    await panel.getByText('No OAuth 2.0 client credentials.').waitFor();

    await panel.getByRole('button', { name: 'Set up OAuth 2.0' }).click();
    expect(await panel.getByLabel('Client authentication').inputValue()).toBe('client_secret_basic');
    expect(await panel.getByLabel('Client secret').getAttribute('type')).toBe('password');
    await panel.getByLabel('Token URL').fill(rx.url('/token').replace('https:', 'http:'));
    await panel.getByLabel('Client ID').fill('portal-client');
    await panel.getByLabel('Client secret').fill(SECRET);
    await panel.getByLabel('Scope (optional)').fill('webhooks:write');
    await panel.getByLabel('Client authentication').selectOption('client_secret_post');
    await panel.getByRole('button', { name: 'Save OAuth 2.0 settings' }).click();
    // The API's 422 names auth.token_url: shown under that field, in its words, nothing stored.
    await panel.locator('#oauth-token_url-error', { hasText: /https/ }).waitFor();
    expect(await panel.getByLabel('Token URL').getAttribute('aria-invalid')).toBe('true');
    expect(await panel.getByLabel('Token URL').getAttribute('aria-describedby')).toBe('oauth-token_url-help oauth-token_url-error');
    expect((await e.shown()).auth).toBeNull();

    await panel.getByLabel('Token URL').fill(rx.url('/token'));
    await panel.getByRole('button', { name: 'Save OAuth 2.0 settings' }).click();
    await panel.getByText('OAuth 2.0 settings saved.').waitFor();
    expect((await e.shown()).auth).toEqual({
      type: 'oauth2_client_credentials',
      token_url: rx.url('/token'),
      client_id: 'portal-client',
      scope: 'webhooks:write',
      audience: null,
      token_auth_method: 'client_secret_post',
    });
    const details = panel.locator('dl.kv');
    const value = (term: string) => details.locator(`dt:text-is("${term}") + dd`);
    expect(await value('Token URL').textContent()).toBe(rx.url('/token'));
    expect(await value('Client ID').textContent()).toBe('portal-client');
    expect(await value('Client secret').textContent()).toBe('Stored, never shown again');
    expect(await value('Scope').textContent()).toBe('webhooks:write');
    expect(await value('Audience').textContent()).toBe('Not set');
    expect(await value('Client authentication').textContent()).toBe('In the request body (client_secret_post)');
    expect(await panel.getByLabel('Client secret').count()).toBe(0);
    // Neither in the HTML nor left in any field's value (a property the HTML does not show).
    expect(await page.content()).not.toContain(SECRET);
    expect(await page.locator('input, textarea').evaluateAll((els) => els.map((el) => (el as HTMLInputElement).value))).not.toContain(SECRET);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-oauth-en-light');

    // A change that keeps the token URL, client id, scope and audience needs no secret: the stored one is sent.
    await panel.getByRole('button', { name: 'Change OAuth 2.0 settings' }).click();
    expect(await panel.getByLabel('Token URL').inputValue()).toBe(rx.url('/token'));
    expect(await panel.getByLabel('Client authentication').inputValue()).toBe('client_secret_post');
    expect(await panel.getByLabel('Client secret').inputValue()).toBe('');
    await panel.getByText('Leave empty to keep the stored secret').waitFor();
    await panel.getByLabel('Client authentication').selectOption('client_secret_basic');
    await panel.getByRole('button', { name: 'Save OAuth 2.0 settings' }).click();
    await panel.getByText('OAuth 2.0 settings saved.').waitFor();
    expect((await e.shown()).auth?.token_auth_method).toBe('client_secret_basic');

    rx.receiver.clear();
    rx.receiver.respondWith((req) =>
      req.path === '/token'
        ? { headers: { 'content-type': 'application/json' }, body: '{"access_token":"tok-1","token_type":"Bearer","expires_in":3600}' }
        : {},
    );
    await e.send({ n: 1 });
    await eventually(() => expect(rx.receiver.requests.map((r) => r.path)).toEqual(['/token', '/hook']));
    const form = new URLSearchParams(rx.receiver.requests[0]!.body);
    expect(form.get('scope')).toBe('webhooks:write');
    const basic = Buffer.from(rx.receiver.requests[0]!.headers['authorization']!.replace(/^Basic /, ''), 'base64').toString('utf8');
    expect(basic.split(':').map((v) => decodeURIComponent(v.replace(/\+/g, ' ')))).toEqual(['portal-client', SECRET]);
    expect(rx.receiver.requests[1]!.headers['authorization']).toBe('Bearer tok-1');

    // Another client id without a secret: the API's 422 under the secret's field; nothing changed.
    await panel.getByRole('button', { name: 'Change OAuth 2.0 settings' }).click();
    await panel.getByLabel('Client ID').fill('another-client');
    await panel.getByRole('button', { name: 'Save OAuth 2.0 settings' }).click();
    await panel.locator('#oauth-client_secret-error', { hasText: /^required when token_url, client_id, scope or audience changes/ }).waitFor();
    expect(await panel.getByLabel('Client secret').getAttribute('aria-invalid')).toBe('true');
    expect((await e.shown()).auth?.client_id).toBe('portal-client');
    expect(await axeViolations(page)).toEqual([]);
    await panel.getByRole('button', { name: 'Cancel' }).click();
    // The refusal of a cancelled form is not left under the buttons.
    expect(await panel.getByText('required when token_url, client_id, scope or audience changes').count()).toBe(0);

    const asked: string[] = [];
    page.on('dialog', (dialog) => void asked.push(dialog.message()));
    await panel.getByRole('button', { name: 'Remove OAuth 2.0' }).click(); // the confirmation is accepted
    await panel.getByText('OAuth 2.0 removed.').waitFor();
    await panel.getByText('No OAuth 2.0 client credentials.').waitFor();
    expect(asked).toEqual([expect.stringContaining(`Remove the OAuth 2.0 client credentials for ${rx.url('/token')}?`)]);
    expect((await e.shown()).auth).toBeNull();
    await page.context().close();
  }, 60_000);

  it('refuses OAuth beside a custom Authorization header, under the form in the API’s words (en)', async () => {
    const e = await scene('oauth-headers');
    expect((await t.api.patch(`/v1/endpoints/${e.id}`, { headers: { authorization: 'Token abcdef0123456789' } })).status).toBe(200);
    const page = await e.open('en', 'light');
    const panel = page.getByRole('region', { name: PANEL });
    await panel.getByRole('button', { name: 'Set up OAuth 2.0' }).click();
    await panel.getByLabel('Token URL').fill(rx.url('/token'));
    await panel.getByLabel('Client ID').fill('portal-client');
    await panel.getByLabel('Client secret').fill(SECRET);
    await panel.getByRole('button', { name: 'Save OAuth 2.0 settings' }).click();
    // The API names headers.authorization, no field of this form: the message goes under the form.
    await panel.locator('#oauth-error', { hasText: /^headers\.authorization: / }).waitFor();
    expect((await e.shown()).auth).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('a URL moved to another origin asks for the client secret again (the API’s rule) and keeps OAuth; within the origin it does not (en)', async () => {
    const e = await scene('oauth-move');
    const auth = { type: 'oauth2_client_credentials', token_url: rx.url('/token'), client_id: 'portal-client', token_auth_method: 'client_secret_post' };
    expect((await t.api.patch(`/v1/endpoints/${e.id}`, { auth: { ...auth, client_secret: SECRET } })).status).toBe(200);
    const page = await e.open('en', 'light');
    const url = page.getByLabel('URL', { exact: true });
    await url.waitFor();
    // Another path of the same origin: no secret asked.
    await url.fill(rx.url('/elsewhere'));
    expect(await page.getByLabel('OAuth client secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Save changes' }).first().click();
    await page.getByText('Saved.', { exact: true }).first().waitFor();
    expect((await e.shown()).auth).toMatchObject({ client_id: 'portal-client' });
    // Another receiver's host: another origin. The secret is asked for, said why, and required before anything is sent.
    const moved = new URL(rx.url('/moved'));
    moved.hostname = moved.hostname.replace(/^r(\d+)\./, (_, n: string) => `r${n === '254' ? 253 : Number(n) + 1}.`);
    await url.fill(moved.href);
    const secret = page.getByLabel('OAuth client secret');
    await secret.waitFor();
    expect(await secret.getAttribute('type')).toBe('password');
    expect(await page.locator('#ep-client-secret-help').textContent()).toContain(moved.origin);
    expect(await secret.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
    await secret.fill(SECRET);
    await page.getByRole('button', { name: 'Save changes' }).first().click();
    await page.getByText('Saved.', { exact: true }).first().waitFor();
    const shown = (await e.shown()) as unknown as { url: string; auth: AuthShown | null };
    expect(shown.url).toBe(moved.href);
    expect(shown.auth).toMatchObject({ client_id: 'portal-client', token_url: rx.url('/token') });
    expect(await page.content()).not.toContain(SECRET);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('shows a token server’s refusal in words among the recent attempts (en)', async () => {
    const e = await scene('oauth-refused');
    const auth = {
      type: 'oauth2_client_credentials',
      token_url: rx.url('/token'),
      client_id: 'portal-client',
      client_secret: SECRET,
      token_auth_method: 'client_secret_basic',
    };
    expect((await t.api.patch(`/v1/endpoints/${e.id}`, { auth })).status).toBe(200);
    rx.receiver.clear();
    rx.receiver.respondWith((req) => (req.path === '/token' ? { status: 401, body: '{"error":"invalid_client"}' } : {}));
    await e.send({ n: 2 });
    await eventually(async () => expect((await e.shown()).recent).toHaveLength(1));
    expect(rx.receiver.requests.map((r) => r.path)).toEqual(['/token']);

    const page = await e.open('en', 'light');
    await page.getByText('Getting an access token from your token server failed (OAuth 2.0 sign-in)').first().waitFor();
    expect(await page.content()).not.toContain(SECRET);
    await page.context().close();
  }, 60_000);

  it('shows them in Japanese in the dark theme, 360 px wide; a listener endpoint gives the reason instead of the form (ja, dark)', async () => {
    const e = await scene('oauth-ja');
    const auth = {
      type: 'oauth2_client_credentials',
      token_url: rx.url('/token'),
      client_id: 'portal-client',
      client_secret: SECRET,
      audience: 'https://api.example.com',
      token_auth_method: 'client_secret_basic',
    };
    expect((await t.api.patch(`/v1/endpoints/${e.id}`, { auth })).status).toBe(200);
    const page = await e.open('ja', 'dark', 360);
    const panel = page.getByRole('region', { name: PANEL });
    await panel.getByText('保存済み（二度と表示されません）').waitFor();
    expect(await panel.locator('dl.kv dt:text-is("クライアント認証方式") + dd').textContent()).toBe('HTTP Basic ヘッダー（client_secret_basic）');
    expect(await panel.locator('dl.kv dt:text-is("スコープ") + dd').textContent()).toBe('未設定');
    expect(await panel.locator('dl.kv dt:text-is("オーディエンス") + dd').textContent()).toBe('https://api.example.com');
    await panel.getByRole('button', { name: 'OAuth 2.0 の設定を変更' }).click();
    await panel.getByText('空欄のままにすると保存済みのシークレットを使い続けます').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await page.content()).not.toContain(SECRET);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-oauth-ja-dark');
    await page.context().close();

    // A listener (`wirehook listen`): the reason instead of the form.
    const testEnv = await wh.key(t.orgId, { env: 'test' });
    const listenConsumer = (await testEnv.api.post('/v1/consumers', { external_id: 'listen-oauth', name: 'Customer' })).body.id as string;
    const query = new URLSearchParams({ forward_to: 'http://localhost:3000/webhook', consumer: listenConsumer });
    const init = { headers: { authorization: `Bearer ${testEnv.key}` } } as unknown as string[];
    const ws = new WebSocket(`${wh.url.replace(/^http/, 'ws')}/v1/listen?${query}`, init);
    try {
      const ready = await new Promise<{ endpoint: { id: string } }>((resolve, reject) => {
        ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data))), { once: true });
        ws.addEventListener('error', () => reject(new Error('wirehook listen: the connection was refused')), { once: true });
      });
      const refused = await testEnv.api.patch(`/v1/endpoints/${ready.endpoint.id}`, { auth });
      expect(refused.status).toBe(422);
      const link = await portalLink(wh, testEnv, listenConsumer, 'en');
      const listenerPage = await openPortal(browser, link, { theme: 'light', locale: 'en', suffix: `#/endpoints/${ready.endpoint.id}` });
      const listenPanel = listenerPage.getByRole('region', { name: PANEL });
      await listenPanel.getByText('OAuth 2.0 does not apply to a wirehook listen endpoint').waitFor();
      expect(await listenPanel.getByRole('button', { name: 'Set up OAuth 2.0' }).count()).toBe(0);
      expect(await listenPanel.getByText('No OAuth 2.0 client credentials.').count()).toBe(0);
      expect(await axeViolations(listenerPage)).toEqual([]);
      await listenerPage.context().close();
    } finally {
      ws.close(1000);
    }
  }, 60_000);
});
