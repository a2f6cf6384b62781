/// <reference lib="dom" />
// The portal's browser tests' shared steps: a consumer's link on the harness's portal port, a
// page opened in a theme and language, an axe-core check, and a screenshot for docs/portal.md
// when WIREHOOK_SCREENSHOTS=1.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Harness, TestTenant } from './harness.ts';

const SHOTS = process.env['WIREHOOK_SCREENSHOTS'] === '1' ? join(import.meta.dirname, '..', '..', 'docs', 'portal') : null;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

/** A link to `consumerId`'s page in `locale`, on the harness's real portal port. */
export async function portalLink(wh: Harness, t: TestTenant, consumerId: string, locale: 'en' | 'ja'): Promise<string> {
  const res = await t.api.post(`/v1/consumers/${consumerId}/portal`, { locale });
  expect(res.status).toBe(201);
  return (res.body.url as string).replace('http://localhost:8081', wh.embedded.portalUrl());
}

export interface OpenOptions {
  theme: 'light' | 'dark';
  locale: 'en' | 'ja';
  /** The address after the link's (a route: `#/messages/msg_…`). */
  suffix?: string;
  width?: number;
}

/** Opens `link` in a fresh context; axe can be injected (bypassCSP only for that). */
export async function openPortal(browser: Browser, link: string, o: OpenOptions): Promise<Page> {
  const context = await browser.newContext({
    locale: o.locale === 'ja' ? 'ja-JP' : 'en-US',
    viewport: { width: o.width ?? 1280, height: 900 },
    colorScheme: o.theme,
    bypassCSP: true,
  });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${link}?theme=${o.theme}${o.suffix ?? ''}`);
  return page;
}

/** axe-core's serious and critical violations on the page as it is now (expected: none). */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  }
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Writes docs/portal/<name>.png when screenshots are asked for. */
export async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
