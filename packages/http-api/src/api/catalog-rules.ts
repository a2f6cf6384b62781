// Enforcing the event catalog on POST /v1/messages: a message of an event type with
// `validation: "enforce"` must match its schema. Which of a tenant's event types enforce is read
// at most once per CATALOG_RULES_TTL_MS per process (one covered index read of those alone);
// an enforcing type's schema once per version; each schema compiled once (core's
// SchemaValidators). A message of any other name costs a map read: a tenant sending made-up
// event types causes no store read, and pushes no other tenant's rules out.
import { InvalidError, SchemaValidators, type Clock, type Tenant } from '@wirehook/core';
import type { Store } from '@wirehook/store';

/** How long a process uses a tenant's enforcing types before reading them again: a PATCH elsewhere takes effect within it. */
export const CATALOG_RULES_TTL_MS = 5_000;
/** Tenants whose rules a process keeps (least recently used out). */
const TENANTS = 10_000;

/** An enforcing event type's rule: its version, and once read, its compiled schema (null: nothing to check). */
interface Rule {
  version: number;
  validate?: ((payload: unknown) => string | null) | null;
}

interface TenantRules {
  until: number;
  types: Map<string, Rule>;
}

export class CatalogRules {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #tenants = new Map<string, TenantRules>();
  /** Reads under way, one per tenant: messages arriving together share it. */
  readonly #loading = new Map<string, Promise<TenantRules>>();
  /** Per tenant, one more at each forget(): a read that began before it is used once, not kept. */
  readonly #generation = new Map<string, number>();
  readonly #validators = new SchemaValidators();

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * Refuses `payload` when `eventType` enforces a schema it does not match.
   * @throws InvalidError `payload/items/0/price: must be number (type): …` — the first failing path and rule.
   */
  async check(t: Tenant, eventType: string, payload: unknown): Promise<void> {
    const rules = await this.#rulesOf(t);
    const rule = rules.types.get(eventType);
    if (rule === undefined) return;
    if (rule.validate === undefined) {
      const found = await this.#store.eventTypes.get(t, eventType);
      // Read at the version listed or a later one; a later schema is the one to enforce.
      rule.validate = found !== null && found.validation === 'enforce' && found.schema !== null ? this.#validators.validatorFor(found.schema) : null;
    }
    if (rule.validate === null) return;
    const problem = rule.validate(payload);
    if (problem !== null) throw new InvalidError(`${problem}: the payload does not match event type ${eventType}'s schema (validation: enforce)`);
  }

  /** A create or PATCH in this process: the tenant's next message reads its rules again. */
  forget(t: Tenant): void {
    this.#tenants.delete(key(t));
    this.#loading.delete(key(t));
    // A read under way began before the change: what it brings is not kept.
    this.#generation.set(key(t), (this.#generation.get(key(t)) ?? 0) + 1);
  }

  #rulesOf(t: Tenant): Promise<TenantRules> | TenantRules {
    const k = key(t);
    const known = this.#tenants.get(k);
    if (known !== undefined && known.until > this.#clock.now()) return known;
    let loading = this.#loading.get(k);
    if (loading === undefined) {
      loading = this.#load(t, k, known).finally(() => this.#loading.delete(k));
      this.#loading.set(k, loading);
    }
    return loading;
  }

  async #load(t: Tenant, k: string, known: TenantRules | undefined): Promise<TenantRules> {
    const now = this.#clock.now();
    const generation = this.#generation.get(k) ?? 0;
    const listed = await this.#store.eventTypes.enforcing(t);
    const types = new Map<string, Rule>();
    for (const { name, version } of listed) {
      // A schema already read at the same version is kept: only a changed type is read again.
      const before = known?.types.get(name);
      types.set(name, before !== undefined && before.version === version ? before : { version });
    }
    const rules = { until: now + CATALOG_RULES_TTL_MS, types };
    if ((this.#generation.get(k) ?? 0) !== generation) return rules;
    this.#tenants.delete(k);
    this.#tenants.set(k, rules);
    if (this.#tenants.size > TENANTS) this.#tenants.delete(this.#tenants.keys().next().value!);
    return rules;
  }
}

const key = (t: Tenant) => `${t.orgId} ${t.env}`;

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
