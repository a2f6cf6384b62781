/// <reference lib="dom" />
// An endpoint's transformation (#45) on the portal's endpoint page, in a real browser against a
// real embedded Wirehook. Code set through the form and read back through the API; 32,769 bytes
// refused by the API under the code field, 32,768 saved; turned off; removed after a
// confirmation (the editor back to the starter). "Try it" with the catalog's example filled in:
// a renaming transformation shows the renamed body, require('fs') its error with line and column
// (the line marked, a button to it in the editor), a cancel "nothing would be sent", a payload
// that is not JSON refused in the page without a call; nothing stored by trying. Japanese in the
// dark theme, 360 px wide; a listener endpoint keeps a transformation and may not move its url.
// axe-clean throughout.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, TestTenant } from '../support/harness.ts';
import { axeViolations, openPortal, portalLink, shot } from '../support/portal-page.ts';
import { closePortalScene, openPortalScene } from '../support/portal-scene.ts';
import type { NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let t: TestTenant;
let rx: NamedReceiver;
let browser: Browser;

const STARTER = 'function handler(webhook) {\n  return webhook;\n}';
const RENAME = [
  'function handler(webhook) {',
  '  const { id, ...rest } = webhook.payload;',
  '  webhook.payload = { order_id: id, ...rest };',
  "  webhook.headers['x-renamed'] = 'yes';",
  '  return webhook;',
  '}',
].join('\n');
const REQUIRE = ['function handler(webhook) {', "  const fs = require('fs');", '  return webhook;', '}'].join('\n');
const CANCEL = 'function handler(webhook) {\n  return { cancel: true };\n}';
const ORDER_EXAMPLE = { id: 'ord_1', total: 4200, currency: 'JPY' };
const NO_EXAMPLE = '{\n  "example": true\n}';

interface Shown {
  type: string;
  url: string;
  transformation: { code: string; enabled: boolean } | null;
}

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  // The catalog: one type with an example (the payload box starts with it), one without.
  expect((await t.api.post('/v1/event-types', { name: 'order.created', description: 'An order was placed', examples: [ORDER_EXAMPLE] })).status).toBe(201);
  expect((await t.api.post('/v1/event-types', { name: 'invoice.paid', description: 'An invoice was paid' })).status).toBe(201);
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

/** A consumer (external id `name`) and its one endpoint: no test sees another's transformation. */
async function scene(name: string) {
  const consumerId = (await t.api.post('/v1/consumers', { external_id: name, name: 'Customer' })).body.id as string;
  const res = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), event_types: ['order.created', 'invoice.paid'] });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  return {
    id,
    shown: async () => {
      const got = await t.api.get(`/v1/endpoints/${id}`);
      expect(got.status).toBe(200);
      return got.body as Shown;
    },
    open: async (locale: 'en' | 'ja', theme: 'light' | 'dark', width?: number): Promise<Page> =>
      openPortal(browser, await portalLink(wh, t, consumerId, locale), { theme, locale, width, suffix: `#/endpoints/${id}` }),
  };
}

/** `code` padded with a comment to exactly `bytes` bytes of UTF-8 (the comment's Japanese is 3 bytes a character). */
function codeOf(bytes: number, code = RENAME): string {
  const head = `${code}\n// 変換のテスト `;
  return head + 'x'.repeat(bytes - Buffer.byteLength(head, 'utf8'));
}

/** Counts the page's calls to the simulate route. */
function simulateCalls(page: Page): { count: number } {
  const calls = { count: 0 };
  page.on('request', (req) => {
    if (req.method() === 'POST' && /\/api\/endpoints\/[^/]+\/transformation\/simulate$/.test(new URL(req.url()).pathname)) calls.count++;
  });
  return calls;
}

const bodyOf = async (panel: Locator) => JSON.parse((await panel.locator('pre.try-body').textContent()) ?? '') as { type: string; data: unknown };

describe('the portal: an endpoint’s transformation', () => {
  it('saves code from the editor (stored as typed), refuses 32,769 bytes under the code and saves 32,768, turns it off, removes it (en)', async () => {
    const e = await scene('tf-save');
    const page = await e.open('en', 'light');
    const panel = page.getByRole('region', { name: 'Transformation' });
    await panel.getByText('No transformation: webhooks are sent as they are.').waitFor();
    const code = panel.getByLabel('Code (JavaScript)');
    await expect.poll(() => code.inputValue()).toBe(STARTER);
    await panel.getByText(`${Buffer.byteLength(STARTER)} of 32,768 bytes`).waitFor();
    const enabled = panel.getByRole('checkbox', { name: 'Enabled: run it on every webhook' });
    expect(await enabled.isChecked()).toBe(true);

    await code.fill(RENAME);
    await panel.getByRole('button', { name: 'Save transformation' }).click();
    await panel.getByText('Transformation saved.').waitFor();
    expect((await e.shown()).transformation).toEqual({ code: RENAME, enabled: true });
    await panel.getByText('Runs on every webhook sent to this endpoint.').waitFor();
    expect(await panel.locator('.pill', { hasText: 'Enabled' }).count()).toBe(1);
    expect(await panel.getByText('Unsaved changes').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // One byte over: counted as typed, and the API's 422 under the code field in its words; nothing changed.
    await code.fill(codeOf(32_769));
    await panel.getByText('Unsaved changes').waitFor();
    await panel.getByText('32,769 of 32,768 bytes: 1 byte too many').waitFor();
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    await panel.getByRole('button', { name: 'Save transformation' }).click();
    await panel.locator('#transformation-code-error', { hasText: /^must be at most 32,768 bytes \(UTF-8\); it is 32,769$/ }).waitFor();
    expect((await code.getAttribute('aria-describedby'))?.split(' ')).toContain('transformation-code-error');
    expect((await e.shown()).transformation?.code).toBe(RENAME);
    expect(await axeViolations(page)).toEqual([]);
    // Try it with it: the simulate route's 422 (it names code) under the code field too.
    await panel.getByRole('button', { name: 'Try it', exact: true }).click();
    await panel.locator('#transformation-code-error', { hasText: /^must be at most 32,768 bytes \(UTF-8\); it is 32,769$/ }).waitFor();
    expect(await panel.locator('.try-result').count()).toBe(0);

    // Exactly the limit is taken.
    await code.fill(codeOf(32_768));
    await panel.getByText('32,768 of 32,768 bytes', { exact: true }).waitFor();
    expect(await code.getAttribute('aria-invalid')).toBeNull();
    await panel.getByRole('button', { name: 'Save transformation' }).click();
    await panel.getByText('Transformation saved.').waitFor();
    await expect.poll(async () => (await e.shown()).transformation?.code).toBe(codeOf(32_768));
    expect(await panel.locator('#transformation-code-error').count()).toBe(0);

    // Kept, not run.
    await code.fill(RENAME);
    await enabled.uncheck();
    await panel.getByRole('button', { name: 'Save transformation' }).click();
    await panel.getByText('Kept but not run: webhooks are sent as they are.').waitFor();
    expect((await e.shown()).transformation).toEqual({ code: RENAME, enabled: false });
    expect(await panel.locator('.pill', { hasText: 'Not enabled' }).count()).toBe(1);

    // Removed after a confirmation; the editor shows the starter again.
    const asked: string[] = [];
    page.on('dialog', (dialog) => void asked.push(dialog.message()));
    // Every DOM change is watched (a MutationObserver runs right after each one, before any later
    // task): no state ever shows "No transformation" beside the old code, not even for a frame.
    await page.evaluate(() => {
      const w = window as unknown as { staleFrames: number };
      w.staleFrames = 0;
      const region = document.querySelector('section[aria-labelledby="transformation-title"]')!;
      new MutationObserver(() => {
        const none = region.textContent?.includes('No transformation: webhooks are sent as they are.');
        const editor = region.querySelector('textarea') as HTMLTextAreaElement;
        if (none && !editor.value.startsWith('function handler(webhook) {\n  return webhook;')) w.staleFrames++;
      }).observe(region, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await panel.getByRole('button', { name: 'Remove transformation' }).click(); // the confirmation is accepted
    await panel.getByText('Transformation removed.').waitFor();
    await panel.getByText('No transformation: webhooks are sent as they are.').waitFor();
    expect(asked).toEqual([expect.stringContaining('Remove this endpoint’s transformation?')]);
    expect((await e.shown()).transformation).toBeNull();
    await expect.poll(() => code.inputValue()).toBe(STARTER);
    expect(await page.evaluate(() => (window as unknown as { staleFrames: number }).staleFrames)).toBe(0);
    expect(await enabled.isChecked()).toBe(true);
    expect(await panel.getByRole('button', { name: 'Remove transformation' }).count()).toBe(0);
    await page.context().close();
  }, 90_000);

  // The example filled in, a rename's renamed body, require's line and column, a cancel, and bad JSON refused in the page.
  it('tries code: example, rename, require’s position, cancel, bad JSON (en)', async () => {
    const e = await scene('tf-try');
    const page = await e.open('en', 'light');
    const calls = simulateCalls(page);
    const panel = page.getByRole('region', { name: 'Transformation' });
    const payload = panel.getByLabel('JSON payload to try');
    const tryIt = panel.getByRole('button', { name: 'Try it', exact: true });
    const result = panel.locator('.try-result');
    expect(await panel.getByLabel('Event type to try').inputValue()).toBe('order.created');
    await expect.poll(() => payload.inputValue()).toBe(JSON.stringify(ORDER_EXAMPLE, null, 2));

    // The editor's code, not saved: the request it would make, the body renamed.
    await panel.getByLabel('Code (JavaScript)').fill(RENAME);
    await tryIt.click();
    await result.getByText('This request would be sent.').waitFor();
    expect(await result.locator('dl.kv').first().locator('dd').textContent()).toBe(rx.url());
    expect(await result.locator('.try-headers dt:has-text("x-renamed") + dd').textContent()).toBe('yes');
    expect(await result.locator('.try-headers dt:has-text("content-type") + dd').textContent()).toBe('application/json');
    const body = await bodyOf(panel);
    expect(body.type).toBe('order.created');
    expect(body.data).toEqual({ order_id: 'ord_1', total: 4200, currency: 'JPY' });
    // Pretty-printed: one key a line.
    expect(await result.locator('pre.try-body').textContent()).toContain('\n    "order_id": "ord_1",\n');
    await result.getByText(/^Ran in [\d,]+ ms\.$/).waitFor();
    expect((await e.shown()).transformation).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-transformation-en-light');

    // require: the sandbox's error with its line and column, the line marked, a way to it.
    await panel.getByLabel('Code (JavaScript)').fill(REQUIRE);
    await tryIt.click();
    await result.getByText('It failed: an attempt would record this error, and nothing would be sent.').waitFor();
    const error = (await result.locator('.notice code').textContent()) ?? '';
    expect(error).toMatch(/^transformation: ReferenceError: 'require' is not defined \(line 2, column \d+\)$/);
    const column = /column (\d+)\)$/.exec(error)![1];
    await result.getByText(`At line 2, column ${column}.`).waitFor();
    expect(await panel.locator('.code-gutter .marked').allTextContents()).toEqual(['2']);
    await result.getByRole('button', { name: 'Show line 2 in the editor' }).click();
    const selected = await page.evaluate(() => {
      const el = document.activeElement as HTMLTextAreaElement;
      return { id: el.id, text: el.value.slice(el.selectionStart, el.selectionEnd) };
    });
    expect(selected).toEqual({ id: 'transformation-code', text: "  const fs = require('fs');" });
    expect(await axeViolations(page)).toEqual([]);
    // Once the code changes the mark goes (it may be another line now), and the result says it is of older code.
    await page.keyboard.press('End');
    await page.keyboard.type(' // edited');
    expect(await panel.locator('.code-gutter .marked').count()).toBe(0);
    await result.getByText('The code has changed since this run.').waitFor();

    await panel.getByLabel('Code (JavaScript)').fill(CANCEL);
    await tryIt.click();
    await result.getByText('Cancelled: nothing would be sent.').waitFor();
    expect(await result.locator('pre.try-body').count()).toBe(0);

    // Not JSON: refused here, under the payload, before any call; the last result is cleared.
    const before = calls.count;
    expect(before).toBe(3);
    await payload.fill('{"id": "ord_1",');
    await tryIt.click();
    await panel.locator('#try-payload-error', { hasText: /^The payload is not valid JSON \(.+\)\. Nothing was run\.$/ }).waitFor();
    expect(await payload.getAttribute('aria-invalid')).toBe('true');
    expect(await result.count()).toBe(0);
    expect(calls.count).toBe(before);
    expect(await axeViolations(page)).toEqual([]);

    // The example again on request; a type without one gets the placeholder while the payload is not edited.
    await panel.getByRole('button', { name: 'Use the example of order.created' }).click();
    expect(await payload.inputValue()).toBe(JSON.stringify(ORDER_EXAMPLE, null, 2));
    await panel.getByLabel('Event type to try').selectOption('invoice.paid');
    await expect.poll(() => payload.inputValue()).toBe(NO_EXAMPLE);
    await tryIt.click();
    await result.getByText('Cancelled: nothing would be sent.').waitFor();
    expect(calls.count).toBe(before + 1);
    expect((await e.shown()).transformation).toBeNull();
    await page.context().close();
  }, 90_000);

  it('shows the stored code and a run’s error in Japanese in the dark theme, 360 px wide (ja, dark)', async () => {
    const e = await scene('tf-ja');
    expect((await t.api.patch(`/v1/endpoints/${e.id}`, { transformation: { code: RENAME } })).status).toBe(200);
    const page = await e.open('ja', 'dark', 360);
    const panel = page.getByRole('region', { name: '変換' });
    await panel.getByText('このエンドポイントに送るすべての Webhook で実行されます。').waitFor();
    expect(await panel.getByLabel('コード（JavaScript）').inputValue()).toBe(RENAME);
    await panel.getByText(`${Buffer.byteLength(RENAME)} / 32,768 バイト`).waitFor();
    // The catalog's example fills the payload once it is read (a click before would try the placeholder).
    await expect.poll(() => panel.getByLabel('試す JSON ペイロード').inputValue()).toBe(JSON.stringify(ORDER_EXAMPLE, null, 2));
    await panel.getByRole('button', { name: '試す', exact: true }).click();
    await panel.getByText('このリクエストが送られます。').waitFor();
    expect((await bodyOf(panel)).data).toEqual({ order_id: 'ord_1', total: 4200, currency: 'JPY' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);

    await panel.getByLabel('コード（JavaScript）').fill(REQUIRE);
    await panel.getByRole('button', { name: '試す', exact: true }).click();
    await panel.getByText('失敗しました。試行にはこのエラーが記録され、何も送られません。').waitFor();
    await panel.getByText(/^2 行目、\d+ 列目。$/).waitFor();
    await panel.getByRole('button', { name: 'エディターで 2 行目を表示' }).waitFor();
    await panel.getByText('未保存の変更があります').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'endpoint-transformation-ja-dark');
    await page.context().close();
  }, 90_000);

  it('keeps a listener endpoint’s transformation, saved from its page; its code may not move the url (en)', async () => {
    await withListener('listen-tf-save', async ({ id, env, page }) => {
      const panel = page.getByRole('region', { name: 'Transformation' });
      await panel.getByText('On a wirehook listen endpoint the code may change the payload and headers, not the url').waitFor();
      await panel.getByLabel('Code (JavaScript)').fill(RENAME);
      await panel.getByRole('button', { name: 'Save transformation' }).click();
      await panel.getByText('Transformation saved.').waitFor();
      const shown = (await env.api.get(`/v1/endpoints/${id}`)).body as Shown;
      expect(shown.type).toBe('listen');
      expect(shown.transformation).toEqual({ code: RENAME, enabled: true });

      // No catalog in this environment: the event type is typed.
      await panel.getByLabel('Event type to try').fill('order.created');
      await panel.getByLabel('JSON payload to try').fill(JSON.stringify(ORDER_EXAMPLE));
      await panel
        .getByLabel('Code (JavaScript)')
        .fill('function handler(webhook) {\n  webhook.url = "https://elsewhere.example.com/hook";\n  return webhook;\n}');
      await panel.getByRole('button', { name: 'Try it', exact: true }).click();
      await panel.locator('.try-result .notice code', { hasText: "transformation: a listener endpoint's url cannot be changed" }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
    });
  }, 90_000);

  // A listener's url (http://localhost…) is where `wirehook listen` forwards: not checked as an endpoint URL, only kept.
  it('tries a listener’s renaming code: the request to its own url, the body renamed (en)', async () => {
    await withListener('listen-tf-try', async ({ page }) => {
      const panel = page.getByRole('region', { name: 'Transformation' });
      await panel.getByLabel('Code (JavaScript)').fill(RENAME);
      await panel.getByLabel('Event type to try').fill('order.created');
      await panel.getByLabel('JSON payload to try').fill(JSON.stringify(ORDER_EXAMPLE));
      await panel.getByRole('button', { name: 'Try it', exact: true }).click();
      await panel.locator('.try-result').waitFor();
      expect(await panel.locator('.try-result .notice').first().textContent()).toBe('This request would be sent.');
      expect(await panel.locator('.try-result dl.kv').first().locator('dd').textContent()).toBe(LISTEN_URL);
      expect((await bodyOf(panel)).data).toEqual({ order_id: 'ord_1', total: 4200, currency: 'JPY' });
    });
  }, 90_000);
});

const LISTEN_URL = 'http://localhost:3000/webhook';

/** A `wirehook listen` connection in the test environment for a new consumer `name`, its endpoint's page open (en, light) while `fn` runs. */
async function withListener(name: string, fn: (l: { id: string; env: TestTenant; page: Page }) => Promise<void>): Promise<void> {
  const env = await wh.key(t.orgId, { env: 'test' });
  const consumer = (await env.api.post('/v1/consumers', { external_id: name, name: 'Customer' })).body.id as string;
  const query = new URLSearchParams({ forward_to: LISTEN_URL, consumer });
  const init = { headers: { authorization: `Bearer ${env.key}` } } as unknown as string[];
  const ws = new WebSocket(`${wh.url.replace(/^http/, 'ws')}/v1/listen?${query}`, init);
  try {
    const ready = await new Promise<{ endpoint: { id: string } }>((resolve, reject) => {
      ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data))), { once: true });
      ws.addEventListener('error', () => reject(new Error('wirehook listen: the connection was refused')), { once: true });
    });
    const id = ready.endpoint.id;
    const page = await openPortal(browser, await portalLink(wh, env, consumer, 'en'), { theme: 'light', locale: 'en', suffix: `#/endpoints/${id}` });
    try {
      await fn({ id, env, page });
    } finally {
      await page.context().close();
    }
  } finally {
    ws.close(1000);
  }
}
