/// <reference lib="dom" />
// An endpoint's health on the portal (issue 33's stats) in a real browser against a real
// embedded Wirehook: the list's sparkline per endpoint; on the endpoint's page the success
// rate, what waits and since when, the chart with its text alternative, and the window
// switch — in English and Japanese, light and dark, axe-clean.
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
let endpointId: string;

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'health', name: 'Customer' })).body.id;
  const once = { retry: { count: 0, interval: '1m' } };
  endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ...once })).body.id;
  // Three delivered, one answered 503: 75 % over the window.
  for (const n of [1, 2, 3]) await t.api.post('/v1/messages', { consumer: 'health', event_type: 'order.created', payload: { n } });
  await eventually(() => expect(rx.receiver.requests).toHaveLength(3));
  rx.receiver.respondWith({ status: 503 });
  await t.api.post('/v1/messages', { consumer: 'health', event_type: 'order.created', payload: { n: 4 } });
  await eventually(async () => expect((await t.api.get(`/v1/endpoints/${endpointId}/stats?window=24h`)).body.attempts).toBe(4));
  rx.receiver.respondWith({});
  // A paused endpoint holds what is sent to it: one waiting (the message goes to the first one too: 4 of 5).
  const paused = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: `${rx.url()}?paused`, ...once })).body.id;
  await t.api.patch(`/v1/endpoints/${paused}`, { status: 'paused' });
  await t.api.post('/v1/messages', { consumer: 'health', event_type: 'order.created', payload: { n: 5 } });
  await eventually(async () => expect((await t.api.get(`/v1/endpoints/${paused}/stats`)).body.pending).toBe(1));
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** The figure under the term `term` in a health panel. */
const figure = (scope: Locator, term: string) =>
  scope
    .locator('.figures > div')
    .filter({ has: scope.page().getByText(term, { exact: true }) })
    .locator('dd');

describe('the portal: endpoint health', () => {
  it('the list shows a sparkline per endpoint; the page shows the rate, the chart and its table, and switches windows (en, light)', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'en'), { theme: 'light', locale: 'en' });
    await page.getByRole('img', { name: 'Last 24 hours: 5 attempts, 4 succeeded, 1 failed (80%)' }).waitFor();
    await page.getByRole('img', { name: 'Last 24 hours: no attempts' }).waitFor();
    await page.getByText('80% succeeded').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoints-health-en-light');

    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    const health = page.getByRole('region', { name: 'Health' });
    await health.getByRole('img', { name: 'Last 24 hours: 5 attempts, 4 succeeded, 1 failed (80%)' }).waitFor();
    expect(await figure(health, 'Success rate').textContent()).toBe('80%');
    expect(await figure(health, 'Waiting now').textContent()).toBe('0');
    expect(await health.getByRole('button', { name: 'Last 24 hours' }).getAttribute('aria-pressed')).toBe('true');
    // The text alternative: the numbers per bucket in a table.
    await health.getByText('Show as a table').click();
    const rows = health.locator('tbody tr');
    expect(await rows.count()).toBe(24);
    expect(await rows.last().locator('td').first().textContent()).toBe('4');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-health-en-light');

    await health.getByRole('button', { name: 'Last hour' }).click();
    await eventually(async () => expect(await rows.count()).toBe(12));
    await health.getByRole('img', { name: /^Last hour: 5 attempts/ }).waitFor();
    await health.getByRole('button', { name: 'Last 7 days' }).click();
    await eventually(async () => expect(await rows.count()).toBe(28));
    await page.context().close();
  }, 60_000);

  it('Japanese in the dark theme: what waits and since when; axe-clean', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'ja'), { theme: 'dark', locale: 'ja' });
    await page.getByRole('img', { name: '過去 24 時間：試行なし' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: `${rx.url()}?paused` }).click();
    const health = page.getByRole('region', { name: '配信の状況' });
    await health.getByRole('img', { name: '過去 24 時間：試行なし' }).waitFor();
    expect(await figure(health, '送信待ち').textContent()).toBe('1');
    await figure(health, '最も古い送信待ち').locator('time').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'エンドポイント', exact: true }).click();
    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    await health.getByRole('img', { name: '過去 24 時間：試行 5 件、成功 4 件、失敗 1 件（80%）' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-health-ja-dark');
    await page.context().close();
  }, 60_000);

  it('the 24-hour and 7-day axes and tables give the date where a day changes', async () => {
    const stats = (await t.api.get(`/v1/endpoints/${endpointId}/stats?window=24h`)).body as { series: { at: number }[] };
    // A time zone where the window's last bucket starts at 12:00: its day began 12 buckets before.
    const offset = 12 - new Date(stats.series.at(-1)!.at).getUTCHours();
    const timezoneId = offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
    const context = await browser.newContext({ locale: 'en-US', timezoneId, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(await portalLink(wh, t, consumerId, 'en'));
    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    const health = page.getByRole('region', { name: 'Health' });
    await health.getByRole('img', { name: /^Last 24 hours: 5 attempts/ }).waitFor();
    const dateOf = (at: number) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: timezoneId }).format(at);
    const dayStart = stats.series.length - 1 - 12; // local 00:00

    // The table: the first row, and the row where the day changes, carry the date; the others the time alone.
    await health.getByText('Show as a table').click();
    const labels = await health.locator('tbody tr th').allTextContents();
    expect(labels).toHaveLength(24);
    labels.forEach((label, i) => {
      const at = stats.series[i]!.at;
      expect(label.includes(dateOf(at)), `${i}: ${label}`).toBe(i === 0 || i === dayStart);
    });
    expect(labels[dayStart]).toMatch(/12:00\sAM$/); // local midnight

    // The axis: the first label dated, the new day's date on the bucket that starts it, the last dated (another day).
    const ticks = await health.locator('.axis.ticks span').allTextContents();
    expect(ticks).toHaveLength(24);
    expect(ticks[0]).toContain(dateOf(stats.series[0]!.at));
    expect(ticks[dayStart]).toContain(dateOf(stats.series[dayStart]!.at));
    expect(ticks.at(-1)).toContain(dateOf(stats.series.at(-1)!.at));
    expect(ticks.filter((text, i) => text !== '' && i !== 0 && i !== dayStart && i !== 23)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-health-axis-dates-en');

    // 7 days: a date on each day's first bucket, away from the ends.
    await health.getByRole('button', { name: 'Last 7 days' }).click();
    await health.getByRole('img', { name: /^Last 7 days/ }).waitFor();
    await eventually(async () => expect(await health.locator('.axis.ticks span').count()).toBe(28));
    const week = (await health.locator('.axis.ticks span').allTextContents()).filter(Boolean);
    expect(week.length).toBeGreaterThanOrEqual(5);
    for (const text of week) expect(text).toMatch(/^[A-Z][a-z]{2} \d{1,2}/);
    await context.close();
  }, 60_000);
});
