// CatalogRules: an enforcing event type's schema holds for a message; what the intake reads for it.
import { InvalidError, ManualClock, newEventType, type Tenant } from '@wirehook/core';
import { openSqliteStore, type Store } from '@wirehook/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_RULES_TTL_MS, CatalogRules } from './catalog-rules.ts';

let store: Store;
let clock: ManualClock;
let reads: string[];
const t: Tenant = { orgId: 'org_rules' as Tenant['orgId'], env: 'live' };
const SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

beforeEach(async () => {
  clock = new ManualClock(1_700_000_000_000);
  const real = openSqliteStore({ path: ':memory:' });
  await real.orgs.create({ id: t.orgId, name: 'Rules', plan: 'free', ownerEmail: null, createdAt: clock.now() } as never);
  reads = [];
  // Counts what the rules read of the event types.
  const eventTypes = new Proxy(real.eventTypes, {
    get: (target, name) => {
      const value = Reflect.get(target, name, target);
      return typeof value === 'function'
        ? (...args: unknown[]) => {
            reads.push(String(name));
            return value.apply(target, args);
          }
        : value;
    },
  });
  store = new Proxy(real, { get: (target, name) => (name === 'eventTypes' ? eventTypes : Reflect.get(target, name, target)) });
  await real.eventTypes.create(t, newEventType({ name: 'order.paid', createdAt: clock.now(), schema: SCHEMA, validation: 'enforce' }), 1_000);
});
afterEach(() => store.close());

describe('CatalogRules', () => {
  it('refuses a payload the enforcing schema does not take, naming the path and rule; takes a good one', async () => {
    const rules = new CatalogRules(store, clock);
    await expect(rules.check(t, 'order.paid', { n: 'one' })).rejects.toThrow(
      new InvalidError("payload/n: must be number (type): the payload does not match event type order.paid's schema (validation: enforce)"),
    );
    await expect(rules.check(t, 'order.paid', { n: 1 })).resolves.toBeUndefined();
  });

  it('reads the tenant’s enforcing types once per 5 s and each schema once; made-up event types read nothing', async () => {
    const rules = new CatalogRules(store, clock);
    for (let i = 0; i < 100; i++) await rules.check(t, `made.up.${i}`, {});
    for (let i = 0; i < 10; i++) await rules.check(t, 'order.paid', { n: i });
    expect(reads).toEqual(['enforcing', 'get']);
    clock.advance(CATALOG_RULES_TTL_MS - 1);
    await rules.check(t, 'made.up.x', {});
    expect(reads).toEqual(['enforcing', 'get']);
    clock.advance(1);
    await rules.check(t, 'order.paid', { n: 1 });
    // The list again; the schema not (its version did not change).
    expect(reads).toEqual(['enforcing', 'get', 'enforcing']);
  });

  it('another process’s PATCH applies within 5 s: a new schema version is read, validation none stops checking', async () => {
    const rules = new CatalogRules(store, clock);
    await expect(rules.check(t, 'order.paid', {})).rejects.toThrow(InvalidError);
    await store.eventTypes.update(t, 'order.paid', { schema: { type: 'object' } }, clock.now(), 0);
    await expect(rules.check(t, 'order.paid', {})).rejects.toThrow(InvalidError); // still the old rule, within 5 s
    clock.advance(CATALOG_RULES_TTL_MS);
    await expect(rules.check(t, 'order.paid', {})).resolves.toBeUndefined();
    await store.eventTypes.update(t, 'order.paid', { schema: SCHEMA, validation: 'none' }, clock.now(), 1);
    rules.forget(t); // as a PATCH in this process does
    await expect(rules.check(t, 'order.paid', {})).resolves.toBeUndefined();
  });
});
