/// <reference lib="dom" />
// The portal's first load failing, in a real browser against a real embedded Wirehook: a link
// whose customer has spent its 300 requests a minute opens on the API's 429 in its own words
// (naming the customer's budget, not the sender's) and a way to ask again — not "Loading…" for
// ever — and asking again once the minute has passed opens the page.
import type { Browser } from 'playwright-core';
import { PORTAL_REQUESTS_PER_MINUTE } from '@wirehook/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import { axeViolations, openPortal, portalLink } from '../support/portal-page.ts';
import type { NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
let consumerId: string;

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'first-load', name: 'Customer' })).body.id;
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

describe('the portal: its first load refused', () => {
  it('shows the API’s 429 for the customer’s budget and a way to ask again, which opens the page once the minute has passed', async () => {
    const link = await portalLink(wh, t, consumerId, 'en');
    const token = new URL(link).pathname.split('/').pop()!;
    const session = () => fetch(`${wh.embedded.portalUrl()}/api/session`, { headers: { authorization: `Bearer ${token}` } });
    // The customer's budget, spent by the customer's own requests; the sender's API still answers.
    expect(PORTAL_REQUESTS_PER_MINUTE).toBe(300);
    for (let i = 0; i < PORTAL_REQUESTS_PER_MINUTE; i++) expect((await session()).status).toBe(200);
    const refused = await session();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^rate limit of 300 requests per minute for this portal link's customer reached/);
    expect((await t.api.get('/v1/consumers')).status).toBe(200);

    const page = await openPortal(browser, link, { theme: 'light', locale: 'en' });
    await page
      .getByRole('alert')
      .getByText(/^Something went wrong: rate limit of 300 requests per minute for this portal link's customer reached/)
      .waitFor();
    expect(await page.getByText('Loading…').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await wh.advance(60_000);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Endpoints', exact: true }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
