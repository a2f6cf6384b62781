/// <reference lib="dom" />
// The customer portal in a real browser (headless Chromium) against a real embedded Wirehook
// and a real HTTPS receiver: every customer action, in an iframe on another origin (allowed
// with frame_origin, refused without), an expired link, Japanese and English, the dark
// theme, 360 px wide, and an accessibility check (axe-core). With WIREHOOK_SCREENSHOTS=1 it
// writes the screenshots of docs/portal.md (`pnpm screenshots`).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { type NamedReceiver, reachingReceivers, refusingUrl, startReceiver } from '../support/receivers.ts';

const SHOTS = process.env['WIREHOOK_SCREENSHOTS'] === '1' ? join(import.meta.dirname, '..', '..', 'docs', 'portal') : null;
let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
let parent: Server;

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant({ plan: 'starter' });
  rx = await startReceiver();
  await t.api.post('/v1/event-types', { name: 'order.created', description: 'An order was placed' });
  await t.api.post('/v1/event-types', { name: 'order.refunded', description: 'An order was refunded' });
  browser = await launchChromium();
  // The sender's dashboard, on another origin: it frames the link it is given (?src=).
  parent = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Dashboard</title><iframe title="Webhooks" src="${src.replace(/"/g, '&quot;')}" width="900" height="700"></iframe>`);
  });
  await new Promise<void>((resolve) => parent.listen(0, '127.0.0.1', resolve));
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  parent?.close();
  await rx?.receiver.close();
  await wh?.close();
});

let seq = 0;
/** A consumer and a link to its page, on the harness's real portal port. */
async function linkFor(body: Record<string, unknown> = {}): Promise<{ consumer: string; consumerId: string; url: string }> {
  const consumer = `browser-${++seq}`;
  const consumerId = (await t.api.post('/v1/consumers', { external_id: consumer, name: `Customer ${seq}` })).body.id;
  const res = await t.api.post(`/v1/consumers/${consumerId}/portal`, body);
  expect(res.status).toBe(201);
  return { consumer, consumerId, url: (res.body.url as string).replace('http://localhost:8081', wh.embedded.portalUrl()) };
}

async function open(url: string, options: { locale?: string; width?: number; colorScheme?: 'light' | 'dark'; bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({
    locale: options.locale ?? 'en-US',
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    bypassCSP: options.bypassCSP ?? false,
  });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(url);
  return page;
}
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};

describe('the portal in a browser', () => {
  it('a customer adds, edits, pauses, resumes and deletes an endpoint; reveals, copies and rotates its secret', async () => {
    const { url } = await linkFor({ locale: 'en' });
    const page = await open(url);
    // The token leaves the address bar at once.
    await eventually(() => expect(page.url()).toMatch(/\/r\/[0-9a-f]{64}$/));
    expect(page.url()).not.toContain('pt_');
    await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    await shot(page, 'endpoints-empty-en-light');

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // An API error appears next to its field, in the API's words.
    await page.getByLabel('URL').fill('http://localhost/hook');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('#ep-url-error').waitFor();
    expect(await page.locator('#ep-url-error').textContent()).toMatch(/^url: /);

    await page.getByLabel('URL').fill(rx.url());
    await page.getByLabel('Description').fill('Orders');
    await page.getByLabel('Only these event types').check();
    await page.getByLabel(/order\.created/).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    // The new secret is shown once created; copy puts it on the clipboard.
    const secret = (await page.locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot(page, 'endpoint-detail-en-light');

    // A test message to this endpoint: its result inline.
    await page.getByLabel('Payload (JSON)').fill('{"hello": "from the portal"}');
    await page.getByRole('button', { name: 'Send test message' }).click();
    await page.getByText('Result: HTTP 200').waitFor();
    expect(rx.receiver.requests.some((r) => r.body.includes('from the portal'))).toBe(true);

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.pill', { hasText: 'Paused' }).first().waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.pill', { hasText: 'Active' }).first().waitFor();

    await page.getByRole('button', { name: 'Hide' }).click();
    await page.getByRole('button', { name: 'Reveal' }).click();
    await eventually(async () => expect(await page.locator('code.secret').textContent()).toBe(secret));
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('New secret made. The old one stays valid for 24 hours.').waitFor();
    expect(await page.locator('code.secret').textContent()).not.toBe(secret);

    await page.getByLabel('Description').fill('Orders and refunds');
    await page.getByRole('button', { name: 'Save changes' }).first().click();
    await page.getByText('Saved.', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet').waitFor();
    await page.context().close();
  }, 60_000);

  it('delivery records with attempts, a re-send, and a recovery with its progress', async () => {
    const { url, consumer, consumerId } = await linkFor({ locale: 'en' });
    await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), retry: { count: 0, interval: '1m' } });
    rx.receiver.respondWith({ status: 503, body: 'down for maintenance' });
    const id = (await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: { n: 1 } })).body.id;
    await eventually(async () => expect((await t.api.get(`/v1/messages/${id}`)).body.status).toBe('failed'));
    rx.receiver.respondWith({});

    const page = await open(url);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.locator('.pill', { hasText: 'Failed' }).first().waitFor();
    await page.getByRole('button', { name: 'Show attempts' }).click();
    await page
      .getByRole('cell', { name: /HTTP 503|error status/ })
      .first()
      .waitFor();
    await page.getByText('down for maintenance').waitFor();
    await shot(page, 'deliveries-en-light');
    await page.getByRole('button', { name: 'Re-send' }).click();
    await page.getByText('Queued to send again.').waitFor();
    await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(2));

    // A second failure, then a recovery from the endpoint's page.
    rx.receiver.respondWith({ status: 500 });
    const again = (await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: { n: 2 } })).body.id;
    await eventually(async () => expect((await t.api.get(`/v1/messages/${again}`)).body.status).toBe('failed'));
    rx.receiver.respondWith({});
    await page.getByRole('button', { name: 'Endpoints' }).click();
    await page.getByRole('button', { name: rx.url() }).click();
    await page.getByRole('button', { name: 'Start re-sending' }).click();
    await page.getByText(/Re-sending|Done: 1 delivery re-sent/).waitFor();
    await eventually(() => expect(rx.receiver.requests.filter((r) => r.headers['webhook-id'] === again)).toHaveLength(2), 15_000);
    await page.context().close();
  }, 60_000);

  it('a message no endpoint took says so (not "Delivered"); one delivered to one endpoint and failed at another shows both', async () => {
    const { url, consumer, consumerId } = await linkFor({ locale: 'en' });
    const only = { event_types: ['order.created'], retry: { count: 0, interval: '1m' } };
    await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ...only });
    await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: refusingUrl(), ...only });
    const mixed = (await t.api.post('/v1/messages', { consumer, event_type: 'order.created', payload: { n: 1 } })).body.id;
    await eventually(async () => expect((await t.api.get(`/v1/messages/${mixed}`)).body.status).toBe('failed'));
    const none = await t.api.post('/v1/messages', { consumer, event_type: 'order.refunded', payload: { n: 2 } });
    expect(none.body.deliveries).toBe(0);

    const page = await open(url);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const rowOf = (id: string) => page.locator('li.card', { hasText: id });
    await rowOf(none.body.id).locator('.pill', { hasText: 'No endpoint matched' }).waitFor();
    expect(await rowOf(none.body.id).locator('.pill', { hasText: 'Delivered' }).count()).toBe(0);
    await rowOf(mixed).locator('.pill', { hasText: 'Delivered 1' }).waitFor();
    await rowOf(mixed).locator('.pill', { hasText: 'Failed 1' }).waitFor();
    // Each delivery says how it ended.
    await rowOf(mixed).getByRole('button', { name: 'Show attempts' }).click();
    await rowOf(mixed).locator('.delivery .pill', { hasText: 'Delivered' }).waitFor();
    await rowOf(mixed).locator('.delivery .pill', { hasText: 'Failed' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('in an iframe on the sender’s origin when the link names it; refused in a frame without frame_origin', async () => {
    const parentOrigin = `http://127.0.0.1:${(parent.address() as AddressInfo).port}`;
    const allowed = await linkFor({ frame_origin: parentOrigin, locale: 'en' });
    const page = await open(`${parentOrigin}/?src=${encodeURIComponent(allowed.url)}`);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    await shot(page, 'iframe-en-light');

    const refused = await linkFor({ locale: 'en' });
    const other = await (await browser.newContext({ locale: 'en-US' })).newPage();
    // The browser's own report of the refusal (the frame's load blocked by the response's
    // frame-ancestors), not a wait for nothing to appear.
    const refusal = other.waitForEvent('requestfailed', {
      predicate: (r) => r.url() === refused.url && r.failure()?.errorText === 'net::ERR_BLOCKED_BY_RESPONSE',
    });
    const violation = other.waitForEvent('console', {
      predicate: (m) => m.text().includes('violates the following Content Security Policy directive: "frame-ancestors \'none\'"'),
    });
    await other.goto(`${parentOrigin}/?src=${encodeURIComponent(refused.url)}`);
    await Promise.all([refusal, violation]);
    const framed = other.frames().find((f) => f !== other.mainFrame());
    expect(framed?.url()).not.toContain('/l/'); // an error page stands in its place
    expect(await other.frameLocator('iframe').getByRole('heading', { name: 'Endpoints', exact: true }).count()).toBe(0);
    await page.context().close();
    await other.context().close();
  }, 60_000);

  it('an expired link says so; Japanese from the link or the browser; the dark theme; 360 px wide', async () => {
    const ja = await linkFor({ locale: 'ja' });
    const jaPage = await open(ja.url);
    await jaPage.getByRole('heading', { name: 'エンドポイント', exact: true }).waitFor();
    await shot(jaPage, 'endpoints-empty-ja-light');
    // An API error next to its field in the page's language (the API's rule, said from the catalogue).
    await jaPage.getByRole('button', { name: 'エンドポイントを追加' }).click();
    await jaPage.getByLabel('URL', { exact: true }).fill('http://localhost/hook');
    await jaPage.getByRole('button', { name: 'エンドポイントを作成' }).click();
    await jaPage.locator('#ep-url-error', { hasText: 'URL は https でなければなりません。' }).waitFor();
    await jaPage.context().close();

    const browserJa = await linkFor();
    const byBrowser = await open(browserJa.url, { locale: 'ja-JP' });
    await byBrowser.getByRole('heading', { name: 'エンドポイント', exact: true }).waitFor();
    await byBrowser.context().close();

    const dark = await linkFor({ locale: 'en' });
    const darkPage = await open(`${dark.url}?theme=dark`);
    await darkPage.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    expect(await darkPage.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    expect(await darkPage.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(15, 20, 25)');
    expect(darkPage.url()).toContain('?theme=dark'); // kept across the token's removal
    await shot(darkPage, 'endpoints-empty-en-dark');
    await darkPage.context().close();

    const system = await linkFor({ locale: 'ja' });
    const systemDark = await open(system.url, { colorScheme: 'dark' });
    await systemDark.getByRole('heading', { name: 'エンドポイント', exact: true }).waitFor();
    expect(await systemDark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(15, 20, 25)');
    await shot(systemDark, 'endpoints-empty-ja-dark');
    await systemDark.context().close();

    const narrow = await linkFor({ locale: 'en' });
    const small = await open(narrow.url, { width: 360 });
    await small.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await small.context().close();

    const old = await linkFor({ locale: 'en' });
    wh.clock.advance(16 * 60_000);
    const expired = await open(old.url);
    await expired.getByRole('heading', { name: 'This link has expired' }).waitFor();
    await shot(expired, 'expired-en-light');
    await expired.context().close();
  }, 60_000);

  it('passes an accessibility check (axe-core: no serious or critical violations) on each screen', async () => {
    const { url, consumerId } = await linkFor({ locale: 'en' });
    await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() });
    // bypassCSP: only so the checker's script can be injected.
    const page = await open(url, { bypassCSP: true });
    await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    await page.addScriptTag({ path: axeSource });
    const check = async () => {
      const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
        violations: { id: string; impact: string; nodes: unknown[] }[];
      };
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
    };
    expect(await check()).toEqual([]);
    await page.getByRole('button', { name: rx.url() }).click();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    expect(await check()).toEqual([]);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
    expect(await check()).toEqual([]);
    await page.context().close();
  }, 60_000);
});
