/// <reference lib="dom" />
// A delivery's older attempts on the portal, in a real browser against a real embedded
// Wirehook: a delivery shows its newest 20 attempts, newest first; "Show older attempts" reads
// the rest from the portal's /deliveries/{id}/attempts and adds them below, then goes away; a
// delivery of exactly 20 has no button; a failed read shows the API's message like the page's
// other errors and leaves the button to try again — English light and Japanese dark, axe-clean.
import type { Browser, Locator, Page } from 'playwright-core';
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
/** The two deliveries of the one message: 23 attempts and exactly 20. */
let long: { id: string; url: string };
let twenty: { id: string; url: string };

/** Waits until the delivery has `attempts` and its send is over (next try in the future, or none). */
async function settled(deliveryId: string, attempts: number): Promise<void> {
  await eventually(async () => {
    const shown = (await t.api.get(`/v1/deliveries/${deliveryId}`)).body;
    expect(shown.attempt_count).toBe(attempts);
    expect(shown.next_attempt_at === null || shown.next_attempt_at > wh.clock.now()).toBe(true);
  });
}

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  rx.receiver.respondWith({ status: 503 });
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'older', name: 'Customer' })).body.id;
  for (const path of ['/long', '/twenty'])
    expect((await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(path), retry: { count: 1, interval: '1h' } })).status).toBe(201);
  messageId = (await t.api.post('/v1/messages', { consumer: 'older', event_type: 'order.created', payload: { id: 1 } })).body.id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${messageId}`)).body.deliveries).toHaveLength(2));
  const deliveries: { id: string; url: string }[] = (await t.api.get(`/v1/messages/${messageId}`)).body.deliveries;
  long = deliveries.find((d) => d.url.endsWith('/long'))!;
  twenty = deliveries.find((d) => d.url.endsWith('/twenty'))!;
  await Promise.all([settled(long.id, 1), settled(twenty.id, 1)]);
  // Manual retries, one second apart (the clock is the test's): 23 and 20 attempts, each at its own time.
  for (let n = 2; n <= 23; n++) {
    await wh.clock.advance(1000);
    const ids = n <= 20 ? [long.id, twenty.id] : [long.id];
    for (const id of ids) expect((await t.api.post(`/v1/deliveries/${id}/retry`)).status).toBe(202);
    await Promise.all(ids.map((id) => settled(id, n)));
  }
}, 120_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** Every attempt of a delivery, newest first, through the API: the times the table must show, in order. */
async function allTimes(deliveryId: string): Promise<string[]> {
  const res = await t.api.get(`/v1/deliveries/${deliveryId}/attempts?limit=100`);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items.map((a: { at: number }) => new Date(a.at).toISOString());
}

/** The times shown in a delivery block's attempt rows, top to bottom. */
const shownTimes = (block: Locator) => block.locator('tbody tr time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));

const blockOf = (page: Page, url: string) => page.locator('.delivery').filter({ hasText: url });

describe('the portal: older attempts of a delivery', () => {
  it('shows the newest 20, then all 23 after "Show older attempts", and no button at exactly 20 (en, light)', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'en'), { theme: 'light', locale: 'en', suffix: `#/messages/${messageId}` });
    const longBlock = blockOf(page, long.url);
    const twentyBlock = blockOf(page, twenty.url);
    await longBlock.locator('tbody tr').nth(19).waitFor();
    const times = await allTimes(long.id);
    expect(times).toHaveLength(23);
    expect(await shownTimes(longBlock)).toEqual(times.slice(0, 20));
    expect(await shownTimes(twentyBlock)).toEqual(await allTimes(twenty.id));
    expect(await twentyBlock.getByRole('button', { name: 'Show older attempts' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'delivery-older-attempts-en-light');

    // By keyboard: the older three come below, the button goes, and focus moves to the first of them.
    await longBlock.getByRole('button', { name: 'Show older attempts' }).focus();
    await page.keyboard.press('Enter');
    await longBlock.locator('tbody tr').nth(22).waitFor();
    expect(await shownTimes(longBlock)).toEqual(times);
    expect(await longBlock.getByRole('button', { name: 'Show older attempts' }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('datetime'))).toBe(times[20]);
    await page.context().close();
  }, 60_000);

  it('in Japanese, dark: a failed read shows the API’s message and keeps the button; the next try appends', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'ja'), { theme: 'dark', locale: 'ja', suffix: `#/messages/${messageId}` });
    const longBlock = blockOf(page, long.url);
    const button = longBlock.getByRole('button', { name: '以前の試行を表示' });
    await button.waitFor();
    expect(await blockOf(page, twenty.url).getByRole('button', { name: '以前の試行を表示' }).count()).toBe(0);
    let asked = '';
    await page.route('**/api/deliveries/*/attempts?*', (route) => {
      asked = new URL(route.request().url()).pathname;
      return route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'rate_limited', message: 'too many requests; retry in 1 s' }),
      });
    });
    await button.click();
    await page.getByRole('alert').getByText('too many requests; retry in 1 s').waitFor();
    expect(asked).toBe(`/api/deliveries/${long.id}/attempts`);
    expect(await longBlock.locator('tbody tr').count()).toBe(20);
    await page.unroute('**/api/deliveries/*/attempts?*');
    await button.click();
    await longBlock.locator('tbody tr').nth(22).waitFor();
    expect(await shownTimes(longBlock)).toEqual(await allTimes(long.id));
    await eventually(async () => expect(await button.count()).toBe(0));
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'delivery-older-attempts-ja-dark');
    await page.context().close();
  }, 60_000);
});
