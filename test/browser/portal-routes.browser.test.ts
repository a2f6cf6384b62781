/// <reference lib="dom" />
// The portal's addresses in a real browser against a real embedded Wirehook: each view has
// one in the hash (ids only: the token never appears in an address the page writes), so a
// deep link, a reload and Back/Forward work; a message is found by its id, and its page shows
// each endpoint it went to with that delivery's status — en light and ja dark, axe-clean.
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import { axeViolations, openPortal, portalLink, shot } from '../support/portal-page.ts';
import { type NamedReceiver, refusingUrl } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
let consumerId: string;
let endpointId: string;
let mixed: string;
const refusing = refusingUrl();

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'routes', name: 'Customer' })).body.id;
  const once = { retry: { count: 0, interval: '1m' } };
  endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), ...once })).body.id;
  await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: refusing, ...once });
  mixed = (await t.api.post('/v1/messages', { consumer: 'routes', event_type: 'order.created', payload: { n: 1 } })).body.id;
  await eventually(async () => expect((await t.api.get(`/v1/messages/${mixed}`)).body.status).toBe('failed'));
  await t.api.post('/v1/messages', { consumer: 'routes', event_type: 'order.created', payload: { n: 2 } });
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** The address bar holds the session path and a route, never the token. */
function expectRoute(page: Page, hash: string) {
  expect(page.url()).not.toContain('pt_');
  expect(page.url()).toMatch(new RegExp(`/r/[0-9a-f]{64}\\?theme=(light|dark)${hash.replace(/[/?]/g, '\\$&')}$`));
}

describe('the portal: addresses, Back, and a message found by id', () => {
  it('search by id, per-endpoint status, Back and Forward, a reload on an endpoint (en, light)', async () => {
    const page = await openPortal(browser, await portalLink(wh, t, consumerId, 'en'), { theme: 'light', locale: 'en' });
    await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    expectRoute(page, '');
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
    expectRoute(page, '#/deliveries');

    // An unknown id: said under the field.
    await page.getByLabel('Message ID').fill('msg_nope');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('#msg-search-error', { hasText: 'No message with this ID' }).waitFor();
    expect(await page.getByLabel('Message ID').getAttribute('aria-describedby')).toBe('msg-search-error');

    await page.getByLabel('Message ID').fill(` ${mixed} `);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: `Message ${mixed}` }).waitFor();
    expectRoute(page, `#/messages/${mixed}`);
    const perEndpoint = page.locator('ul.plain li');
    await perEndpoint.filter({ hasText: rx.url() }).locator('.pill', { hasText: 'Delivered' }).waitFor();
    await perEndpoint.filter({ hasText: refusing }).locator('.pill', { hasText: 'Failed' }).waitFor();
    expect(await page.locator('.delivery').count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'message-en-light');

    await page.goBack();
    await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
    expectRoute(page, '#/deliveries');
    await page.goBack();
    await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
    // A row's "Details" is a link to the message's address.
    await page.locator('li.card', { hasText: mixed }).getByRole('link', { name: 'Details' }).click();
    await page.getByRole('heading', { name: `Message ${mixed}` }).waitFor();
    expectRoute(page, `#/messages/${mixed}`);

    await page.getByRole('button', { name: 'Endpoints' }).click();
    await page.getByRole('button', { name: rx.url(), exact: true }).click();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    expectRoute(page, `#/endpoints/${endpointId}`);
    // A reload stays there: the route from the address, the token from this tab's storage.
    await page.reload();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    expectRoute(page, `#/endpoints/${endpointId}`);
    await page.goBack();
    await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
    expectRoute(page, '#/endpoints');
    await page.context().close();
  }, 60_000);

  it('a link with a route opens on it (ja, dark); axe-clean', async () => {
    const link = await portalLink(wh, t, consumerId, 'ja');
    const page = await openPortal(browser, link, { theme: 'dark', locale: 'ja', suffix: `#/messages/${mixed}` });
    await page.getByRole('heading', { name: `メッセージ ${mixed}` }).waitFor();
    expectRoute(page, `#/messages/${mixed}`);
    await page.locator('ul.plain li', { hasText: refusing }).locator('.pill', { hasText: '失敗' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'message-ja-dark');
    await page.getByRole('button', { name: '配信一覧に戻る' }).click();
    await page.getByRole('heading', { name: '配信履歴', exact: true }).waitFor();
    expectRoute(page, '#/deliveries');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('a still-valid deep link opened in another browser says what happened and what to do, not "expired" (en and ja)', async () => {
    for (const [locale, title, todo] of [
      ['en', 'This link is not open in this browser', 'Open the link again from the email or app that gave it to you.'],
      ['ja', 'このリンクはこのブラウザでは開かれていません', 'メールやアプリからリンクをもう一度開いてください。'],
    ] as const) {
      const first = await openPortal(browser, await portalLink(wh, t, consumerId, locale), { theme: 'light', locale, suffix: `#/messages/${mixed}` });
      await first.getByRole('heading', { name: new RegExp(mixed) }).waitFor();
      const deepLink = first.url(); // /r/<session>#/messages/…: what a customer copies from the address bar
      // Another browser (a fresh context): the link is still valid, but this tab never had its token.
      const other = await openPortal(browser, deepLink.replace(/\?theme=light.*$/, ''), { theme: 'light', locale, suffix: `#/messages/${mixed}` });
      await other.getByRole('heading', { name: title }).waitFor();
      expect(await other.locator('main.gone p').textContent()).toContain(todo);
      expect(await other.getByRole('heading', { name: /expired|有効期限/ }).count()).toBe(0);
      expect(await axeViolations(other)).toEqual([]);
      if (locale === 'en') await shot(other, 'not-in-this-browser-en-light');
      // The link itself still opens where it was opened first.
      await first.reload();
      await first.getByRole('heading', { name: new RegExp(mixed) }).waitFor();
      await first.context().close();
      await other.context().close();
    }
  }, 60_000);
});
