/// <reference lib="dom" />
// Network and signature on the portal's endpoint page, in a real browser against a real
// embedded Wirehook: a fixed_ip endpoint lists the addresses to allow (GET /egress-ips through
// the link, a retiring one with its date), a direct one is switched to them; the extra
// signature header is set (a refused
// header name shown under the form in the API's words), kept, and turned off — en light and
// ja dark, axe-clean.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import { axeViolations, openPortal, portalLink, shot } from '../support/portal-page.ts';
import type { NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
let consumerId: string;
let fixedId: string;
const DAY = 86_400_000;

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  // The pool as a gateway records it at start: .8 taken out, listed as retiring for 30 days.
  const now = wh.clock.now();
  await wh.store.egressIps.sync(
    [
      { ip: '203.0.113.7', family: 4 },
      { ip: '203.0.113.8', family: 4 },
    ],
    now,
    30 * DAY,
  );
  await wh.store.egressIps.sync([{ ip: '203.0.113.7', family: 4 }], now, 30 * DAY);
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'network', name: 'Customer' })).body.id;
  fixedId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), fixed_ip: true })).body.id;
  await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: `${rx.url()}?direct` });
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

describe('the portal: network and signature', () => {
  it('a fixed_ip endpoint lists the addresses to allow; the extra signature header is refused, then set (en, light)', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'en'), { theme: 'light', locale: 'en' });
    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    const panel = page.getByRole('region', { name: 'Network and signature' });
    const allow = panel.getByRole('list', { name: 'Allow these addresses' });
    await allow.getByText('203.0.113.7').waitFor();
    expect(await allow.locator('li').allTextContents()).toEqual(['203.0.113.7', '203.0.113.8 · retiring in 30 days']);

    await panel.getByLabel('Send an extra signature header').check();
    await panel.getByLabel('Header name').fill('Connection');
    await panel.getByRole('button', { name: 'Save network and signature' }).click();
    await panel.locator('#compat-error', { hasText: /^compat_signature\.header: must not be a header Wirehook sends itself/ }).waitFor();
    expect(await panel.getByLabel('Header name').getAttribute('aria-describedby')).toBe('compat-error');
    await panel.getByLabel('Header name').fill('X-Hub-Signature-256');
    await panel.getByLabel('Encoding').selectOption('base64');
    await panel.getByLabel(/^Prefix/).fill('sha256=');
    await panel.getByRole('button', { name: 'Save network and signature' }).click();
    await panel.getByText('Saved.').waitFor();
    expect((await t.api.get(`/v1/endpoints/${fixedId}`)).body.compat_signature).toEqual({
      header: 'X-Hub-Signature-256',
      content: 'body',
      encoding: 'base64',
      prefix: 'sha256=',
    });
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-network-en-light');

    // An endpoint sent directly says so, and lists no addresses.
    await page.getByRole('button', { name: 'Endpoints', exact: true }).click();
    await page.getByRole('button', { name: `${rx.url()}?direct` }).click();
    await page.getByText('This endpoint is sent directly, not from fixed IP addresses.', { exact: false }).waitFor();
    expect(await page.getByRole('list', { name: 'Allow these addresses' }).count()).toBe(0);
    // Ticking the box shows the addresses to allow before anything is saved; saving switches it.
    const direct = page.getByRole('region', { name: 'Network and signature' });
    await direct.getByLabel('Send from fixed IP addresses').check();
    await direct.getByRole('list', { name: 'Allow these addresses' }).getByText('203.0.113.7').waitFor();
    await direct.getByRole('button', { name: 'Save network and signature' }).click();
    await direct.getByText('Saved.').waitFor();
    const directId = (await t.api.get(`/v1/endpoints?consumer_id=${consumerId}`)).body.items.find((e: { url: string }) => e.url.endsWith('?direct')).id;
    expect((await t.api.get(`/v1/endpoints/${directId}`)).body.fixed_ip).toBe(true);
    await page.context().close();
  }, 60_000);

  // After the test above: it set the header.
  it('in Japanese, dark: the retiring date in its place, the header kept and turned off; axe-clean', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'ja'), { theme: 'dark', locale: 'ja' });
    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    const panel = page.getByRole('region', { name: 'ネットワークと署名' });
    await panel.getByText('203.0.113.8 · 30 日後に廃止').waitFor();
    expect(await panel.getByLabel('ヘッダー名').inputValue()).toBe('X-Hub-Signature-256');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-network-ja-dark');
    await panel.getByLabel('追加の署名ヘッダーを送る').uncheck();
    await panel.getByRole('button', { name: 'ネットワークと署名を保存' }).click();
    await panel.getByText('保存しました。').waitFor();
    expect((await t.api.get(`/v1/endpoints/${fixedId}`)).body.compat_signature).toBeNull();
    await page.context().close();
  }, 60_000);
});
