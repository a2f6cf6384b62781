/// <reference lib="dom" />
// What a delivery sent, on the portal, in a real browser against a real embedded Wirehook: the
// body as sent (the exact bytes signed) or formatted, with a copy button; what a waiting
// delivery waits on; the headers the spec defines (the signature
// shortened; the ordering headers and the endpoint's extra signature header when it has
// them) and when a retrying delivery goes next — English light and Japanese dark, axe-clean.
import type { Browser, Locator } from 'playwright-core';
import { eventually } from '@wirehook/testkit';
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
let messageId: string;
let createdAt: number;
let pausedConsumerId: string;
const payload = { order: { id: 42, total: 1200, items: ['tea', 'cups'] } };

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'sent', name: 'Customer' })).body.id;
  const made = await t.api.post('/v1/endpoints', {
    consumer_id: consumerId,
    url: rx.url(),
    retry: { count: 1, interval: '5m' },
    ordering: 'key',
    compat_signature: { header: 'X-Hub-Signature-256', content: 'body', encoding: 'hex', prefix: 'sha256=' },
  });
  expect(made.status).toBe(201);
  rx.receiver.respondWith({ status: 503 });
  const sent = await t.api.post('/v1/messages', { consumer: 'sent', event_type: 'order.created', payload, ordering_key: 'order-42' });
  messageId = sent.body.id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${messageId}`)).body.status).toBe('retrying'));
  createdAt = (await t.api.get(`/v1/messages/${messageId}`)).body.created_at;
  // A paused endpoint: its delivery waits, and says why.
  pausedConsumerId = (await t.api.post('/v1/consumers', { external_id: 'held', name: 'Held' })).body.id;
  const paused = (await t.api.post('/v1/endpoints', { consumer_id: pausedConsumerId, url: rx.url('/held') })).body.id;
  await t.api.patch(`/v1/endpoints/${paused}`, { status: 'paused' });
  const held = (await t.api.post('/v1/messages', { consumer: 'held', event_type: 'order.created', payload })).body.id;
  expect((await t.api.get(`/v1/messages/${held}`)).body.deliveries[0].waiting_on).toEqual({ reason: 'paused' });
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** The value shown for header `name` in `scope`'s header list. */
const header = (scope: Locator, name: string) =>
  scope
    .locator('.headers dl > div')
    .filter({ has: scope.page().locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd');

describe('the portal: what a delivery sent', () => {
  it('the body as sent (the bytes signed) and formatted, each copied; headers, signature shortened, ordering ones too; the next try (en, light)', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'en'), { theme: 'light', locale: 'en' });
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByRole('button', { name: 'Show attempts' }).click();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const pre = page.locator('pre.payload');
    // As sent (the default): byte for byte the body the receiver got, the one the signature covers.
    const asSent = rx.receiver.requests[0]!.rawBody.toString('utf8');
    expect(await page.getByRole('button', { name: 'As sent' }).getAttribute('aria-pressed')).toBe('true');
    expect(await pre.textContent()).toBe(asSent);
    await page.getByText('The exact bytes sent and signed', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Copy: Body' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(asSent);
    // Formatted: the same JSON, indented for reading, and said not to be the signed bytes.
    await page.getByRole('button', { name: 'Formatted' }).click();
    const formatted = JSON.stringify({ type: 'order.created', timestamp: new Date(createdAt).toISOString(), data: payload }, null, 2);
    expect(await pre.textContent()).toBe(formatted);
    expect(JSON.parse(asSent)).toEqual(JSON.parse(formatted));
    await page.getByText('Indented for reading: not the bytes that were signed.').waitFor();
    await page.getByRole('button', { name: 'Copy: Body' }).click();
    await eventually(async () => expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(formatted));
    expect(await page.locator('.waiting').count()).toBe(0); // a retry waiting for its time: nothing to explain

    await page.getByText('Next try in 5 minutes').waitFor();
    const delivery = page.locator('.delivery');
    await delivery.getByText('Headers', { exact: true }).click();
    const got = rx.receiver.requests[0]!.headers;
    expect(await header(delivery, 'webhook-id').textContent()).toBe(messageId);
    expect(await header(delivery, 'webhook-id').textContent()).toBe(got['webhook-id']);
    expect(await header(delivery, 'webhook-timestamp').textContent()).toBe(got['webhook-timestamp']);
    expect(await header(delivery, 'webhook-signature').textContent()).toMatch(/^v1,…/);
    expect(await header(delivery, 'webhook-ordering-key').textContent()).toBe('order-42');
    expect(await header(delivery, 'webhook-sequence').textContent()).toBe(got['webhook-sequence']);
    expect(await header(delivery, 'content-type').textContent()).toBe('application/json');
    await eventually(async () => expect(await header(delivery, 'x-hub-signature-256').textContent()).toBe('sha256=… (extra signature, hex)'));
    expect(got['x-hub-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'delivery-sent-en-light');
    await page.context().close();
  }, 60_000);

  it('in Japanese, dark: the next try and the headers; axe-clean', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'ja'), { theme: 'dark', locale: 'ja' });
    await page.getByRole('button', { name: '配信履歴', exact: true }).click();
    await page.getByRole('button', { name: '試行を表示' }).click();
    await page.getByText('次の試行：5 分後').waitFor();
    await page.locator('.delivery').getByText('ヘッダー', { exact: true }).click();
    expect(await header(page.locator('.delivery'), 'webhook-id').textContent()).toBe(messageId);
    await page.getByRole('button', { name: '整形' }).click();
    expect(await page.getByRole('button', { name: '送信したまま' }).getAttribute('aria-pressed')).toBe('false');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'delivery-sent-ja-dark');
    await page.context().close();
  }, 60_000);

  it('a waiting delivery says what it waits on: its endpoint is paused (en and ja, axe-clean)', async () => {
    for (const [locale, tab, show, words] of [
      ['en', 'Deliveries', 'Show attempts', 'Waiting: this endpoint is paused or stopped. Resume it and this delivery is sent.'],
      ['ja', '配信履歴', '試行を表示', '待機中：このエンドポイントは一時停止または停止しています。再開するとこの配信が送られます。'],
    ] as const) {
      const page = await openPortal(browser, await portalLink(wh, t, pausedConsumerId, locale), { theme: 'light', locale });
      await page.getByRole('button', { name: tab, exact: true }).click();
      await page.getByRole('button', { name: show }).click();
      expect(await page.locator('.delivery .waiting').textContent()).toBe(words);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }
  }, 60_000);
});
