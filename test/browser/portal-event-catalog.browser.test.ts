/// <reference lib="dom" />
// The portal's event catalog (#45) in a real browser against a real embedded Wirehook: the event
// types the sender registered through the API — one with a nested schema ($defs, a recursive
// $ref, an array of objects), enforced, with an example; one deprecated without a schema; one
// described but not enforced — listed with their descriptions, versions and what is checked in
// words; one opened shows its schema as a tree (names, types, required, descriptions, allowed
// values, the $refs opened once and a recursion named) and its example, the JSON on demand; an
// endpoint's event-type picker links each type to its catalog entry. Japanese in the dark theme,
// 360 px wide without sideways scrolling; axe-clean throughout.
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
let consumerId: string;
let endpointId: string;

const ORDER_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  description: 'An order, as it was when it was placed.',
  required: ['id', 'customer', 'items'],
  properties: {
    id: { type: 'string', description: 'The order’s ID', minLength: 5, maxLength: 40 },
    status: { type: 'string', enum: ['pending', 'paid'] },
    customer: { $ref: '#/$defs/Customer' },
    items: { type: 'array', minItems: 1, items: { $ref: '#/$defs/LineItem' } },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: ['string', 'null'] },
  },
  $defs: {
    Customer: {
      type: 'object',
      description: 'Who placed the order',
      required: ['email'],
      properties: {
        email: { type: 'string', format: 'email', description: 'Where receipts go' },
        referred_by: { $ref: '#/$defs/Customer' },
      },
    },
    LineItem: {
      type: 'object',
      required: ['sku', 'quantity'],
      properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
  },
};
const ORDER_EXAMPLE = {
  id: 'ord_1',
  status: 'paid',
  customer: { email: 'ann@example.com' },
  items: [{ sku: 'SKU-1', quantity: 2 }],
  tags: ['gift'],
  note: null,
};

beforeAll(async () => {
  ({ wh, t, rx, browser } = await openPortalScene());
  const created = [
    {
      name: 'order.created',
      description: 'An order was placed',
      schema: ORDER_SCHEMA,
      examples: [ORDER_EXAMPLE],
      validation: 'enforce',
    },
    { name: 'order.legacy', description: 'The old order event', deprecated: true },
    { name: 'order.refunded', description: 'An order was refunded', schema: { type: 'object', properties: { amount: { type: 'integer' } } } },
  ];
  for (const body of created) expect((await t.api.post('/v1/event-types', body)).status).toBe(201);
  consumerId = (await t.api.post('/v1/consumers', { external_id: 'catalog', name: 'Customer' })).body.id;
  const endpoint = await t.api.post('/v1/endpoints', { consumer_id: consumerId, url: rx.url(), event_types: ['order.created'] });
  expect(endpoint.status).toBe(201);
  endpointId = endpoint.body.id;
}, 60_000);
afterAll(() => closePortalScene({ browser, rx, wh }));

async function open(locale: 'en' | 'ja', theme: 'light' | 'dark', suffix = '', width?: number): Promise<Page> {
  return openPortal(browser, await portalLink(wh, t, consumerId, locale), { theme, locale, suffix, width });
}

/** An event type's card in the catalog. */
const entryOf = (page: Page, name: string): Locator => page.locator('li.catalog-entry', { has: page.getByRole('heading', { level: 2, name, exact: true }) });

/** The schema tree as lines, each field's parts (name, type, required, definition) indented by depth. */
async function treeLines(entry: Locator): Promise<string[]> {
  return entry.locator('.schema > ul.schema-tree').evaluate((root) => {
    const out: string[] = [];
    const walk = (list: Element, depth: number) => {
      for (const li of list.children) {
        const parts = [...(li.querySelector(':scope > .schema-line')?.children ?? [])].map((c) => c.textContent?.trim());
        out.push(`${'  '.repeat(depth)}${parts.join(' ')}`);
        const nested = li.querySelector(':scope > ul.schema-tree');
        if (nested) walk(nested, depth + 1);
      }
    };
    walk(root, 0);
    return out;
  });
}

describe('the portal: the event catalog', () => {
  it('lists the event types, opens one as a tree with its example and JSON, links the picker to it (en, light)', async () => {
    const page = await open('en', 'light');
    await page.getByRole('navigation').getByRole('button', { name: 'Event catalog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event catalog' }).waitFor();
    expect(page.url()).toMatch(/#\/event-types$/);
    expect(await page.getByRole('navigation').getByRole('button', { name: 'Event catalog' }).getAttribute('aria-current')).toBe('page');

    const created = entryOf(page, 'order.created');
    const legacy = entryOf(page, 'order.legacy');
    const refunded = entryOf(page, 'order.refunded');
    expect(await page.locator('li.catalog-entry h2').allTextContents()).toEqual(['order.created', 'order.legacy', 'order.refunded']);
    await created.getByText('An order was placed').waitFor();
    await created.getByText('Payloads are checked against this schema').waitFor();
    await created.getByText('Version 1').waitFor();
    expect(await created.getByText('Deprecated').count()).toBe(0);
    await legacy.getByText('The old order event').waitFor();
    // Deprecated in words (a pill with its text, and a sentence saying what it means), not colour alone.
    expect(await legacy.locator('.pill-deprecated').textContent()).toBe('Deprecated');
    await legacy.getByText('the sender plans to stop sending this event type').waitFor();
    await legacy.getByText('No schema: payloads are not described').waitFor();
    expect(await legacy.getByText('Payloads are checked against this schema').count()).toBe(0);
    await refunded.getByText('Payloads are described by a schema, not checked against it').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const show = created.getByRole('button', { name: 'Show the schema and an example' });
    expect(await show.getAttribute('aria-expanded')).toBe('false');
    await show.click();
    await created.locator('.schema > ul.schema-tree').waitFor();
    expect(await created.getByRole('button', { name: 'Hide the schema and example' }).getAttribute('aria-expanded')).toBe('true');
    await created.getByText('An order, as it was when it was placed.').waitFor();
    expect(await treeLines(created)).toEqual([
      'id string required',
      'status string optional',
      'customer object required (Customer)',
      '  email string required',
      '  referred_by Customer optional',
      'items array required',
      '  each item object (LineItem)',
      '    sku string required',
      '    quantity integer required',
      'tags array of string optional',
      'note string or null optional',
    ]);
    // Descriptions, allowed values and limits under their field; the recursion named, not opened again.
    await created.getByText('The order’s ID').waitFor();
    await created.getByText('length: 5–40').waitFor();
    expect(await created.locator('.schema-facts', { hasText: 'One of:' }).textContent()).toBe('One of: "pending", "paid"');
    await created.getByText('Who placed the order').waitFor();
    await created.getByText('Where receipts go').waitFor();
    await created.getByText('format: email').waitFor();
    await created.getByText('Customer again: its fields are shown above.').waitFor();
    await created.getByText('items: ≥ 1').waitFor();
    await created.getByText('No other keys.').waitFor();
    // Required in words, not colour alone.
    expect(await created.locator('.schema-req').allTextContents()).toEqual(Array(6).fill('required'));

    const pres = created.locator('pre.catalog-json');
    expect(await pres.count()).toBe(1);
    expect(await pres.textContent()).toBe(JSON.stringify(ORDER_EXAMPLE, null, 2));
    await created.getByRole('button', { name: 'Copy: Example payload' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'event-catalog-en-light');

    // The JSON, secondary: a toggle, and back to the tree.
    const json = created.getByRole('button', { name: 'Show JSON' });
    await json.click();
    expect(await json.getAttribute('aria-pressed')).toBe('true');
    expect(JSON.parse((await pres.first().textContent()) ?? '')).toEqual(ORDER_SCHEMA);
    expect(await created.locator('ul.schema-tree').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await json.click();
    await created.locator('.schema > ul.schema-tree').waitFor();

    // An endpoint's event-type picker: each type links to its catalog entry, which opens with focus on it.
    await page.goto(page.url().replace(/#.*$/, `#/endpoints/${endpointId}`));
    const picker = page.getByRole('group', { name: 'Event types' });
    await picker.getByRole('checkbox').first().waitFor();
    // Seen as "What’s in it?"; a screen reader's list of links hears which type each is.
    for (const name of ['order.created', 'order.legacy', 'order.refunded']) {
      const link = picker.getByRole('link', { name: `What’s in it? ${name} in the event catalog`, exact: true });
      expect(await link.getAttribute('href')).toBe(`#/event-types/${name}`);
      expect(await link.evaluate((a) => a.firstChild?.textContent)).toBe('What’s in it?');
      expect(await link.locator('.sr-only').textContent()).toBe(` ${name} in the event catalog`);
    }
    expect(await picker.getByRole('link').count()).toBe(3);
    await picker.locator('.type-choice', { hasText: 'order.legacy' }).getByText('Deprecated').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await picker.getByRole('link', { name: 'What’s in it? order.legacy in the event catalog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event catalog' }).waitFor();
    expect(page.url()).toMatch(/#\/event-types\/order\.legacy$/);
    const legacyAgain = entryOf(page, 'order.legacy');
    await legacyAgain.getByText('The sender has not described this payload.').waitFor();
    await legacyAgain.getByText('No example.').waitFor();
    expect(await legacyAgain.getByRole('button', { name: 'Hide the schema and example' }).getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('order.legacy');
    // Back returns to the endpoint.
    await page.goBack();
    await page.getByRole('group', { name: 'Event types' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('shows an entry from a deep link in Japanese in the dark theme, 360 px wide without sideways scrolling (ja, dark)', async () => {
    const page = await open('ja', 'dark', '#/event-types/order.created', 360);
    await page.getByRole('heading', { level: 1, name: 'イベントカタログ' }).waitFor();
    const created = entryOf(page, 'order.created');
    await created.locator('.schema > ul.schema-tree').waitFor();
    await created.getByText('ペイロードはこのスキーマで検証されます').waitFor();
    await created.getByText('バージョン 1').waitFor();
    expect(await entryOf(page, 'order.legacy').locator('.pill-deprecated').textContent()).toBe('非推奨');
    await entryOf(page, 'order.legacy').getByText('スキーマなし: ペイロードは説明されていません').waitFor();
    expect(await treeLines(created)).toEqual([
      'id string 必須',
      'status string 任意',
      'customer object 必須 （Customer）',
      '  email string 必須',
      '  referred_by Customer 任意',
      'items array 必須',
      '  各要素 object （LineItem）',
      '    sku string 必須',
      '    quantity integer 必須',
      'tags string の配列 任意',
      'note string または null 任意',
    ]);
    await created.getByText('Customer の繰り返し: フィールドは上に表示されています。').waitFor();
    expect(await created.locator('pre.catalog-json').textContent()).toBe(JSON.stringify(ORDER_EXAMPLE, null, 2));
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('order.created');
    expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'event-catalog-ja-dark');

    // The schema's JSON wraps rather than widening the page.
    await created.getByRole('button', { name: 'JSON を表示' }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);
});
