/// <reference lib="dom" />
// The API reference page (/docs) shows what docs/openapi.json generates beyond the operations:
// each operation's curl and @wirehook/client samples (x-codeSamples, in Redoc's right panel) and
// the webhooks section, the request Wirehook sends to an endpoint.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { startWirehook, type Harness } from '../support/harness.ts';

interface Doc {
  paths: Record<string, Record<string, { operationId: string; 'x-codeSamples': { label: string; source: string }[] }>>;
  webhooks: Record<string, Record<string, { summary: string }>>;
}

let wh: Harness;
let browser: Browser;
let page: Page;
let doc: Doc;

beforeAll(async () => {
  wh = await startWirehook();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${wh.url}/docs`);
  await page.getByRole('heading', { name: 'Wirehook API', exact: false }).first().waitFor({ timeout: 20_000 });
  doc = (await (await fetch(`${wh.url}/v1/openapi.json`)).json()) as Doc;
});
afterAll(async () => {
  await browser?.close();
  await wh?.close();
});

it('every operation shows its curl and @wirehook/client samples', async () => {
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
  expect(operations.length).toBeGreaterThanOrEqual(23);
  for (const op of operations) {
    // Redoc renders an operation's samples in its section (id "operation/<operationId>") as tabs
    // named by label, after its own "Payload" tab; only the selected tab's code is on the page.
    const section = page.locator(`[id="operation/${op.operationId}"]`);
    for (const sample of op['x-codeSamples']) {
      await section.getByRole('tab', { name: sample.label, exact: true }).click();
      const firstCall = sample.source.split('\n').find((line) => line.startsWith('curl') || line.includes('await wirehook.'))!;
      await expect.poll(() => section.textContent(), { message: `${op.operationId} ${sample.label}` }).toContain(firstCall.replace(/ \\$/, ''));
    }
  }
});

it('shows the webhooks section: the request sent to an endpoint, its headers and body', async () => {
  const summary = doc.webhooks['message']!['post']!.summary;
  const text = (await page.locator('body').textContent()) ?? '';
  expect(text).toContain(summary);
  for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(text).toContain(header);
});
