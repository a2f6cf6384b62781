/// <reference lib="dom" />
// The portal's throughput control (issue 32) in a real browser against a real embedded Wirehook:
// an endpoint whose receiver answered 429 with Retry-After shows "paused by the receiver until …"
// in the viewer's own time zone, in English and Japanese; a customer sets the endpoint's rate
// limit, sees a bad one refused next to the field, and removes it; axe-clean.
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { axeViolations, portalLink } from '../support/portal-page.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let browser: Browser;
const receivers: NamedReceiver[] = [];

beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  t = await wh.tenant({ plan: 'starter' });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const rx of receivers) await rx.receiver.close();
  await wh?.close();
});

/** A new consumer with one endpoint at a receiver of its own. */
async function scene(name: string): Promise<{ rx: NamedReceiver; consumerId: string; endpointId: string }> {
  const rx = await startReceiver();
  receivers.push(rx);
  const consumerId = (await t.api.post('/v1/consumers', { external_id: name, name: 'Customer' })).body.id;
  const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).body.id;
  return { rx, consumerId, endpointId };
}

/** The endpoint's page, in `locale` and `timezoneId`. */
async function openEndpoint(rx: NamedReceiver, consumerId: string, locale: 'en' | 'ja', timezoneId: string): Promise<Page> {
  const context = await browser.newContext({ locale: locale === 'ja' ? 'ja-JP' : 'en-US', timezoneId, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(await portalLink(wh, t, consumerId, locale));
  await page.getByRole('button', { name: rx.url() }).click();
  await page.getByRole('heading', { name: rx.url() }).waitFor();
  return page;
}

/** How the page's locale and time zone write `ms` (the page's own Intl, as the portal formats dates). */
function localTime(page: Page, locale: 'en' | 'ja', ms: number): Promise<string> {
  return page.evaluate(([l, at]) => new Intl.DateTimeFormat(l as string, { dateStyle: 'medium', timeStyle: 'medium' }).format(at as number), [
    locale,
    ms,
  ] as const);
}

describe('the portal: throughput control', () => {
  it('an endpoint held by its receiver shows until when, in the viewer’s time zone, in English and Japanese', async () => {
    const { rx, consumerId, endpointId } = await scene('held');
    rx.receiver.respondWith({ status: 429, headers: { 'retry-after': '3600' } });
    await t.api.post('/v1/messages', { consumer: 'held', event_type: 'order.created', payload: { n: 1 } });
    let heldUntil = 0;
    await eventually(async () => {
      heldUntil = (await t.api.get(`/v1/endpoints/${endpointId}`)).body.throughput.held_until;
      expect(heldUntil).toBeGreaterThan(Date.now() + 3_000_000);
    }, 20_000);

    const en = await openEndpoint(rx, consumerId, 'en', 'America/New_York');
    const enTime = await localTime(en, 'en', heldUntil);
    await en.getByText(`Paused by the receiver until ${enTime}`).waitFor();
    // The viewer's zone, not the server's: New York's hour differs from UTC's.
    expect(enTime).not.toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }).format(heldUntil));
    expect(await axeViolations(en)).toEqual([]);
    await en.context().close();

    const ja = await openEndpoint(rx, consumerId, 'ja', 'Asia/Tokyo');
    await ja.getByText(`受信側の要求により ${await localTime(ja, 'ja', heldUntil)} まで一時停止中`).waitFor();
    await ja.context().close();
  }, 60_000);

  it('an endpoint not held shows no such line; the customer sets a rate limit, a bad one is refused beside the field, and removes it', async () => {
    const { rx, consumerId, endpointId } = await scene('limited');
    const page = await openEndpoint(rx, consumerId, 'en', 'Europe/Paris');
    await page.getByRole('heading', { name: 'Rate limit' }).waitFor();
    expect(await page.getByText('Paused by the receiver').count()).toBe(0);
    const field = page.getByLabel('Deliveries per second (1–10,000)');
    const save = page.getByRole('button', { name: 'Save rate limit' });
    expect(await field.inputValue()).toBe('');
    // Nothing to save until the value changes.
    expect(await save.isDisabled()).toBe(true);

    await field.fill('10001');
    await save.click();
    await page.getByText(/rate_limit.*must be a whole number from 1 to 10000, or null/).waitFor();
    expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.rate_limit).toBeNull();

    await field.fill('25');
    await save.click();
    await page.getByText('Saved.', { exact: true }).first().waitFor(); // another element may say it too while it is shown
    expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.rate_limit).toBe(25);
    expect(await page.getByText(/must be a whole number/).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // Kept after a reload; then removed in one click.
    await page.reload();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    await eventually(async () => expect(await page.getByLabel('Deliveries per second (1–10,000)').inputValue()).toBe('25'));
    await page.getByRole('button', { name: 'Remove rate limit' }).click();
    await page.getByText('Rate limit removed.').waitFor();
    expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.rate_limit).toBeNull();
    expect(await page.getByLabel('Deliveries per second (1–10,000)').inputValue()).toBe('');
    await page.context().close();
  }, 60_000);
});
