/// <reference lib="dom" />
// The portal's delivery order (issue 31) in a real browser against a real embedded Wirehook:
// a customer sets an endpoint to "in order per ordering key", sees it kept after a reload and
// through the API, in English and Japanese, and sets it back.
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import type { NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** A link to the page of a new consumer with one endpoint. */
async function scene(locale: 'en' | 'ja'): Promise<{ endpointId: string; consumerId: string; url: string }> {
  const consumerId = (await t.api.post('/v1/consumers', { external_id: `ordering-${locale}`, name: 'Customer' })).body.id;
  const endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).body.id;
  return { endpointId, consumerId, url: await linkOf(consumerId, locale) };
}

async function linkOf(consumerId: string, locale: 'en' | 'ja'): Promise<string> {
  const res = await t.api.post(`/v1/consumers/${consumerId}/portal`, { locale });
  expect(res.status).toBe(201);
  return (res.body.url as string).replace('http://localhost:8081', wh.embedded.portalUrl());
}

async function openEndpoint(url: string, locale: string): Promise<Page> {
  const page = await (await browser.newContext({ locale })).newPage();
  await page.goto(url);
  await page.getByRole('button', { name: rx.url() }).click();
  await page.getByRole('heading', { name: rx.url() }).waitFor();
  return page;
}

describe('the portal: delivery order', () => {
  it('a customer sets an endpoint in order per ordering key; it is kept after a reload and in Japanese; then back to any order', async () => {
    const { endpointId, consumerId, url } = await scene('en');
    const page = await openEndpoint(url, 'en-US');
    await page.getByRole('heading', { name: 'Delivery order' }).waitFor();
    expect(await page.getByLabel('Any order (fastest)').isChecked()).toBe(true);
    // Nothing to save until the choice changes.
    expect(await page.getByRole('button', { name: 'Save delivery order' }).isDisabled()).toBe(true);
    await page.getByLabel('In order per ordering key').check();
    await page.getByRole('button', { name: 'Save delivery order' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.ordering).toBe('key');

    // Kept: the page read again (the tab keeps its token, the address the endpoint's route) shows it chosen.
    await page.reload();
    await page.getByRole('heading', { name: rx.url() }).waitFor();
    await eventually(async () => expect(await page.getByLabel('In order per ordering key').isChecked()).toBe(true));
    await page.context().close();

    const ja = await openEndpoint(await linkOf(consumerId, 'ja'), 'ja-JP');
    await ja.getByRole('heading', { name: '配信順序' }).waitFor();
    expect(await ja.getByLabel('順序キーごとに順番どおり').isChecked()).toBe(true);
    await ja.getByLabel('順序なし（最速）').check();
    await ja.getByRole('button', { name: '配信順序を保存' }).click();
    await ja.getByText('保存しました。').waitFor();
    expect((await t.api.get(`/v1/endpoints/${endpointId}`)).body.ordering).toBe('none');
    await ja.context().close();
  }, 60_000);
});
