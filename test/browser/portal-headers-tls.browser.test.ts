// Custom headers and the client certificate (mutual TLS) on the portal's endpoint page, in a real
// browser against a real embedded Wirehook. Headers: two set through the form (a refused name
// first, in the API's words under the form), read back through the API redacted; one removed
// while the page knows the other's value; after a reload the page no longer knows it, so it
// offers no single removal and asks for the value again; the rest removed. Certificate: a key
// that is not one refused under its field; the test CA's client certificate saved and shown
// (subject, issuer, expiry with the days left, fingerprint), the key nowhere on the page; a
// warning once the browser's clock is 10 days from the expiry; removed. Japanese in the dark
// theme; a listener endpoint explains why it takes no certificate. axe-clean throughout.
import { testClientCertificate } from '@wirehook/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { axeViolations, openPortal, portalLink, shot } from '../support/portal-page.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import type { NamedReceiver } from '../support/receivers.ts';

const DAY = 86_400_000;
let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;
let consumerId: string;
let endpointId: string;
let client: { certPem: string; keyPem: string };

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'headers-tls', name: 'Customer' })).body.id;
  endpointId = (await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url() })).body.id;
  client = await testClientCertificate();
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

const shown = async () =>
  (await t.api.get(`/v1/endpoints/${endpointId}`)).body as { headers: Record<string, string> | null; tls: Record<string, unknown> | null };

async function openEndpoint(locale: 'en' | 'ja', theme: 'light' | 'dark'): Promise<Page> {
  return openPortal(browser, await portalLink(wh, t, consumerId, locale), { theme, locale, suffix: `#/endpoints/${endpointId}` });
}

describe('the portal: custom headers and the client certificate', () => {
  it('sets two headers (a refused name first), removes one while values are known, asks for values after a reload, removes all (en, light)', async () => {
    const page = await openEndpoint('en', 'light');
    const panel = page.getByRole('region', { name: 'Custom headers' });
    await panel.getByText('No custom headers.').waitFor();

    await panel.getByRole('button', { name: 'Add headers' }).click();
    await panel.getByText('Values are write-only').waitFor();
    await panel.getByLabel('Name of header 1').fill('X-Api-Key');
    await panel.getByLabel('Value of header 1').fill('key-0123456789');
    await panel.getByRole('button', { name: 'Add a header' }).click();
    await panel.getByLabel('Name of header 2').fill('Host');
    await panel.getByLabel('Value of header 2').fill('tenant-000004242');
    await panel.getByText('2 of 20 headers · 43 of 4,096 bytes').waitFor();
    // A name Wirehook sets itself: the API's 422 under the form, nothing stored.
    await panel.getByRole('button', { name: 'Save headers' }).click();
    await panel.locator('#headers-error', { hasText: 'Host is set by Wirehook or by the connection' }).waitFor();
    expect((await shown()).headers).toBeNull();

    await panel.getByLabel('Name of header 2').fill('X-Tenant');
    await panel.getByRole('button', { name: 'Save headers' }).click();
    await panel.getByText('Saved.').waitFor();
    expect((await shown()).headers).toEqual({ 'x-api-key': '…6789', 'x-tenant': '…4242' });
    const list = panel.getByRole('list', { name: 'Custom headers' });
    await list.getByText('…4242').waitFor();
    expect(await list.locator('li code').allTextContents()).toEqual(['x-api-key', '…6789', 'x-tenant', '…4242']);
    expect(await page.content()).not.toContain('0123456789');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-headers-en-light');

    // The page saved the whole set, so it can resend the rest without the one removed.
    await panel.getByRole('button', { name: 'Remove x-api-key' }).click();
    await panel.getByText('Header x-api-key removed.').waitFor();
    expect((await shown()).headers).toEqual({ 'x-tenant': '…4242' });

    // After a reload the value is unknown: no single removal; editing asks for it again.
    await page.reload();
    const again = page.getByRole('region', { name: 'Custom headers' });
    await again.getByRole('list', { name: 'Custom headers' }).getByText('…4242').waitFor();
    expect(await again.getByRole('button', { name: 'Remove x-tenant' }).count()).toBe(0);
    await again.getByText('values cannot be read back, so saving asks for the value of every header you keep').waitFor();
    await again.getByRole('button', { name: 'Edit headers' }).click();
    expect(await again.getByLabel('Name of header 1').inputValue()).toBe('x-tenant');
    expect(await again.getByLabel('Value of header 1').inputValue()).toBe('');
    await again.getByRole('button', { name: 'Save headers' }).click();
    await again.locator('#headers-error', { hasText: 'Enter the value of x-tenant (values cannot be read back)' }).waitFor();
    expect((await shown()).headers).toEqual({ 'x-tenant': '…4242' });
    expect(await axeViolations(page)).toEqual([]);
    await again.getByRole('button', { name: 'Cancel' }).click();

    await again.getByRole('button', { name: 'Remove all headers' }).click(); // the confirmation is accepted
    await again.getByText('Custom headers removed.').waitFor();
    await again.getByText('No custom headers.').waitFor();
    expect((await shown()).headers).toBeNull();
    await page.context().close();
  }, 60_000);

  it('refuses a key that is not one, saves the client certificate and shows it (key never), warns near its expiry, removes it (en, light)', async () => {
    const page = await openEndpoint('en', 'light');
    const panel = page.getByRole('region', { name: 'Client certificate (mutual TLS)' });
    await panel.getByText('No client certificate.').waitFor();
    await panel.getByRole('button', { name: 'Add a client certificate' }).click();
    await panel.getByText('Stored sealed and never shown again').waitFor();
    await panel.getByLabel('Client certificate (PEM)').fill(client.certPem);
    await panel.getByLabel('Private key (PEM)').fill('not a key');
    await panel.getByRole('button', { name: 'Save certificate' }).click();
    await panel.locator('#tls-client_key-error', { hasText: /^not a PEM private key/ }).waitFor();
    expect(await panel.getByLabel('Private key (PEM)').getAttribute('aria-describedby')).toBe('tls-client_key-help tls-client_key-error');
    expect((await shown()).tls).toBeNull();

    await panel.getByLabel('Private key (PEM)').fill(client.keyPem);
    await panel.getByRole('button', { name: 'Save certificate' }).click();
    await panel.getByText('Certificate saved.').waitFor();
    const tls = (await shown()).tls as { subject: string; not_after: number; fingerprint_sha256: string };
    expect(tls.subject).toBe('CN=wirehook-test-client');
    const details = panel.locator('dl.kv');
    const value = (term: string) => details.locator(`dt:text-is("${term}") + dd`);
    expect(await value('Subject').textContent()).toBe('CN=wirehook-test-client');
    expect(await value('Issuer').textContent()).toMatch(/Wirehook Test CA/);
    expect(await value('Expires').locator('time').getAttribute('datetime')).toBe(new Date(tls.not_after).toISOString());
    // The test CA's certificate is valid for 30 days from its making (this process).
    expect(await value('Expires').textContent()).toMatch(/\(30 days left\)$/);
    expect(await value('SHA-256 fingerprint').textContent()).toBe(tls.fingerprint_sha256);
    expect(await value('Trusted server CA').textContent()).toBe('Public root CAs only');
    expect(await panel.getByText(/expires in \d+ days?\./).count()).toBe(0);
    expect(await panel.getByLabel('Private key (PEM)').count()).toBe(0);
    expect(await page.content()).not.toContain(client.keyPem.split('\n')[1]!);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-tls-en-light');

    // Ten days before the expiry (the browser's clock), and after it: warned in words.
    await page.clock.setFixedTime(tls.not_after - 10 * DAY + 60_000);
    await page.reload();
    const soon = page.getByRole('region', { name: 'Client certificate (mutual TLS)' });
    await soon.getByText('This certificate expires in 10 days.').waitFor();
    expect(await soon.locator('dl.kv dt:text-is("Expires") + dd').textContent()).toMatch(/\(10 days left\)$/);
    await page.clock.setFixedTime(tls.not_after + DAY);
    await page.reload();
    const expired = page.getByRole('region', { name: 'Client certificate (mutual TLS)' });
    await expired
      .getByRole('alert')
      .getByText(/^This certificate expired on /)
      .waitFor();
    expect(await expired.locator('dl.kv dt:text-is("Expires") + dd').textContent()).toMatch(/\(expired\)$/);

    await expired.getByRole('button', { name: 'Remove certificate' }).click(); // the confirmation is accepted
    await expired.getByText('Certificate removed.').waitFor();
    await expired.getByText('No client certificate.').waitFor();
    expect((await shown()).tls).toBeNull();
    await page.context().close();
  }, 60_000);

  it('shows both in Japanese in the dark theme; a listener endpoint explains it takes no certificate (ja, dark)', async () => {
    const set = await t.api.patch(`/v1/endpoints/${endpointId}`, {
      headers: { 'x-api-key': 'key-0123456789' },
      tls: { client_certificate: client.certPem, client_key: client.keyPem },
    });
    expect(set.status).toBe(200);
    const page = await openEndpoint('ja', 'dark');
    const headers = page.getByRole('region', { name: 'カスタムヘッダー' });
    await headers.getByRole('list', { name: 'カスタムヘッダー' }).getByText('…6789').waitFor();
    await headers.getByRole('button', { name: 'ヘッダーを編集' }).waitFor();
    const tls = page.getByRole('region', { name: 'クライアント証明書（相互 TLS）' });
    await tls.getByText('CN=wirehook-test-client').waitFor();
    await tls.getByText('(残り 30 日)').waitFor();
    await tls.getByRole('button', { name: '証明書を置き換える' }).click();
    await tls.getByText('封印して保存され、あなたにも送信元にも二度と表示されません').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-headers-tls-ja-dark');
    await page.context().close();

    // A listener (`wirehook listen`): the reason instead of the certificate form; headers still offered.
    const testEnv = await wh.key(t.orgId, { env: 'test' });
    const listenConsumer = (await testEnv.api.post('/v1/consumers', { external_id: 'listen-tls', name: 'Customer' })).body.id as string;
    const query = new URLSearchParams({ forward_to: 'http://localhost:3000/webhook', consumer: listenConsumer });
    const init = { headers: { authorization: `Bearer ${testEnv.key}` } } as unknown as string[];
    const ws = new WebSocket(`${wh.url.replace(/^http/, 'ws')}/v1/listen?${query}`, init);
    try {
      const ready = await new Promise<{ endpoint: { id: string } }>((resolve, reject) => {
        ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data))), { once: true });
        ws.addEventListener('error', () => reject(new Error('wirehook listen: the connection was refused')), { once: true });
      });
      const link = await portalLink(wh, testEnv, listenConsumer, 'en');
      const listenerPage = await openPortal(browser, link, { theme: 'light', locale: 'en', suffix: `#/endpoints/${ready.endpoint.id}` });
      const panel = listenerPage.getByRole('region', { name: 'Client certificate (mutual TLS)' });
      await panel.getByText('A client certificate does not apply to a wirehook listen endpoint').waitFor();
      expect(await panel.getByRole('button', { name: 'Add a client certificate' }).count()).toBe(0);
      await listenerPage.getByRole('region', { name: 'Custom headers' }).getByRole('button', { name: 'Add headers' }).waitFor();
      expect(await axeViolations(listenerPage)).toEqual([]);
      await listenerPage.context().close();
    } finally {
      ws.close(1000);
    }
  }, 60_000);
});
