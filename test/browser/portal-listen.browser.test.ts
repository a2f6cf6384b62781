// Listener endpoints (`wirehook listen`) in the portal, in a real browser against a real embedded
// Wirehook: a consumer with one http endpoint and one listener made by a real listen connection
// (the WebSocket the CLI holds). The listener is marked in the list and on its page — a "listen"
// badge that says what it is, its URL as the forward-to address on the developer's machine, no
// URL to edit and no fixed IP to choose — and the http endpoint is not.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { axeViolations, openPortal, portalLink } from '../support/portal-page.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import type { NamedReceiver } from '../support/receivers.ts';

const FORWARD_TO = 'http://localhost:3000/webhook';
let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
/** A key of the same organisation's test environment: `wirehook listen` takes no other. */
let testEnv: TestTenant;

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  testEnv = await wh.key(t.orgId, { env: 'test' });
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/**
 * Connects as `wirehook listen --forward-to <forwardTo> --consumer <consumerId>` does, until its
 * `ready` frame; closing it cleanly removes the listener endpoint.
 */
async function listen(consumerId: string, forwardTo: string): Promise<{ endpointId: string; close(): void }> {
  const query = new URLSearchParams({ forward_to: forwardTo, consumer: consumerId });
  // Node's WebSocket (undici) takes request headers; the DOM's type of it (the program includes
  // it for the browser tests' page code) knows only protocols.
  const init = { headers: { authorization: `Bearer ${testEnv.key}` } } as unknown as string[];
  const ws = new WebSocket(`${wh.url.replace(/^http/, 'ws')}/v1/listen?${query}`, init);
  const ready = await new Promise<{ endpoint: { id: string } }>((resolve, reject) => {
    ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data))), { once: true });
    ws.addEventListener('error', () => reject(new Error('wirehook listen: the connection was refused')), { once: true });
  });
  return { endpointId: ready.endpoint.id, close: () => ws.close(1000) };
}

/** The list's card of the endpoint whose address is `url`. */
const cardOf = (page: Page, url: string) => page.locator('li.card', { has: page.getByRole('button', { name: url, exact: true }) });

describe('the portal: listener endpoints', () => {
  it('marks a listener in the list and on its page (forward-to address, no URL to edit); an http endpoint is not marked', async () => {
    const consumerId = (await testEnv.api.post('/v1/consumers', { external_id: 'listen-portal', name: 'Customer' })).body.id as string;
    const http = await testEnv.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() });
    expect(http.status).toBe(201);
    const listener = await listen(consumerId, FORWARD_TO);
    try {
      expect((await testEnv.api.get(`/v1/endpoints/${listener.endpointId}`)).body).toMatchObject({ type: 'listen', url: FORWARD_TO });
      const page = await openPortal(browser, await portalLink(wh, testEnv, consumerId, 'en'), { theme: 'light', locale: 'en' });

      // The list: the listener carries the badge (saying what it is) and "Forwards to"; the http endpoint neither.
      await page.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
      const listenerCard = cardOf(page, FORWARD_TO);
      const httpCard = cardOf(page, rx.url());
      await httpCard.waitFor();
      const badge = listenerCard.locator('.pill', { hasText: 'listen' });
      await badge.waitFor();
      expect(await badge.getAttribute('title')).toMatch(/wirehook listen connection.*developer’s own machine/);
      await listenerCard.getByText('Forwards to').waitFor();
      expect(await httpCard.locator('.pill', { hasText: 'listen' }).count()).toBe(0);
      expect(await httpCard.getByText('Forwards to').count()).toBe(0);

      // Its page: marked and explained; the forward-to address shown, not offered for editing; no fixed-IP choice.
      await listenerCard.getByRole('button', { name: FORWARD_TO, exact: true }).click();
      await page.getByRole('heading', { name: `Forwards to ${FORWARD_TO}`, exact: true }).waitFor();
      await page.locator('.row .pill', { hasText: 'listen' }).waitFor();
      await page.getByText('It exists only while the CLI is connected').waitFor();
      await page.getByText('Set by wirehook listen --forward-to').waitFor();
      expect(await page.getByLabel('URL', { exact: true }).count()).toBe(0);
      expect(await page.getByLabel('Send from fixed IP addresses').count()).toBe(0);
      await page.getByText('Not used by a wirehook listen endpoint').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      // Its other settings still save, and its address stays the CLI's.
      await page.getByLabel('Description').fill('My laptop');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved.', { exact: true }).first().waitFor();
      expect((await testEnv.api.get(`/v1/endpoints/${listener.endpointId}`)).body).toMatchObject({ description: 'My laptop', url: FORWARD_TO });

      // The http endpoint's page: its URL heading and field, no badge.
      await page.getByRole('button', { name: 'Back to endpoints' }).click();
      await httpCard.getByRole('button', { name: rx.url(), exact: true }).click();
      await page.getByRole('heading', { name: rx.url(), exact: true }).waitFor();
      expect(await page.locator('.pill', { hasText: 'listen' }).count()).toBe(0);
      expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe(rx.url());
      expect(await page.getByLabel('Send from fixed IP addresses').count()).toBe(1);
      await page.context().close();
    } finally {
      listener.close();
    }
  }, 60_000);
});
