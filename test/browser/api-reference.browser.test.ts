/// <reference lib="dom" />
// The API reference page (/docs) in a real browser: Redoc, served from the gateway's own
// origin under a strict content security policy, renders the OpenAPI document with every
// operation, and the page loads nothing from anywhere else. With WIREHOOK_SCREENSHOTS=1 it
// writes docs/api-reference.png (the README's picture).
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { startWirehook, type Harness } from '../support/harness.ts';

const SHOT = process.env['WIREHOOK_SCREENSHOTS'] === '1' ? join(import.meta.dirname, '..', '..', 'docs', 'api-reference.png') : null;
let wh: Harness;
let browser: Browser;

beforeAll(async () => {
  wh = await startWirehook();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await wh?.close();
});

it('renders every operation from /v1/openapi.json, from our own origin only, with no CSP violation', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const elsewhere: string[] = [];
  const problems: string[] = [];
  // Everything the page tries to load from elsewhere. This machine has no outside network, so
  // a response could never come; the attempt is what shows a CDN dependency. The one known
  // attempt is Redoc's "by Redocly" footer logo, which its bundle points at its CDN and our
  // CSP refuses.
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(wh.url) && !url.startsWith('blob:') && !url.startsWith('data:') && !url.endsWith('/redoc/logo-mini.svg')) elsewhere.push(url);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${wh.url}/docs`);
  await page.getByRole('heading', { name: 'Wirehook API', exact: false }).first().waitFor({ timeout: 20_000 });
  const doc = (await (await fetch(`${wh.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string }>> };
  const summaries = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.summary));
  expect(summaries.length).toBeGreaterThanOrEqual(23);
  const text = (await page.locator('body').textContent()) ?? '';
  for (const summary of summaries) expect(text, summary).toContain(summary);
  if (SHOT) await page.screenshot({ path: SHOT });
  expect(elsewhere).toEqual([]);
  expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p) && !p.includes('logo-mini.svg'))).toEqual([]);
  await page.close();
});
