// Enforcing the event catalog on POST /v1/messages: a message of an event type with
// `validation: "enforce"` must match its schema. The rule of each event type is read from the
// store at most once per CATALOG_RULES_TTL_MS per process (unregistered types too), and each
// schema is compiled once (core's SchemaValidators): a message costs a map read and the
// validation itself, never a store read.
import { InvalidError, SchemaValidators, type Clock, type Tenant } from '@wirehook/core';
import type { Store } from '@wirehook/store';

/** How long a process uses an event type's rule before reading it again: a PATCH elsewhere takes effect within it. */
export const CATALOG_RULES_TTL_MS = 5_000;
const CAPACITY = 10_000;

type Rule = { schema: Record<string, unknown> } | null;

export class CatalogRules {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #rules = new Map<string, { until: number; rule: Rule }>();
  readonly #validators = new SchemaValidators();

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * Refuses `payload` when `eventType` enforces a schema it does not match.
   * @throws InvalidError `payload/items/0/price: must be number (type)` — the first failing path and rule.
   */
  async check(t: Tenant, eventType: string, payload: unknown): Promise<void> {
    const rule = await this.#rule(t, eventType);
    if (rule === null) return;
    const problem = this.#validators.check(rule.schema, payload);
    if (problem !== null) throw new InvalidError(`${problem}: the payload does not match event type ${eventType}'s schema (validation: enforce)`);
  }

  /** A PATCH or create in this process: its next message reads the rule again. */
  forget(t: Tenant, eventType: string): void {
    this.#rules.delete(key(t, eventType));
  }

  async #rule(t: Tenant, eventType: string): Promise<Rule> {
    const k = key(t, eventType);
    const now = this.#clock.now();
    const known = this.#rules.get(k);
    if (known !== undefined && known.until > now) return known.rule;
    const found = await this.#store.eventTypes.get(t, eventType);
    const rule = found !== null && found.validation === 'enforce' && found.schema !== null ? { schema: found.schema } : null;
    this.#rules.delete(k);
    this.#rules.set(k, { until: now + CATALOG_RULES_TTL_MS, rule });
    if (this.#rules.size > CAPACITY) this.#rules.delete(this.#rules.keys().next().value!);
    return rule;
  }
}

const key = (t: Tenant, eventType: string) => `${t.orgId} ${t.env} ${eventType}`;

/** One CatalogRules per store: the API's routes of a process share it (a PATCH is seen by the next message at once). */
const shared = new WeakMap<Store, CatalogRules>();
export function catalogRulesOf(store: Store, clock: Clock): CatalogRules {
  let rules = shared.get(store);
  if (rules === undefined) {
    rules = new CatalogRules(store, clock);
    shared.set(store, rules);
  }
  return rules;
}
