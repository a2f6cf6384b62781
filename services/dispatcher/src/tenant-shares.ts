// Whose sends hold the places: a bound per tenant (org + environment) on a dispatcher's places,
// so fairness between tenants holds where sends wait, not only in what the sweep lists.
import { tenantKey, type Tenant } from '@wirehook/core';
import type { TenantHolds } from './tenant-holds.ts';

/**
 * The share of a dispatcher's places one tenant may hold when not set
 * (DISPATCH_PLACES_PER_TENANT): a quarter of them, so a tenant whose receivers all hang holds
 * at most 128 of the default 512 and the other 384 stay free for the others; never below one
 * endpoint's slots (a tenant's one endpoint can always use all of its own), nor above the places.
 */
export function defaultPlacesPerTenant(concurrency: number, slotsPerEndpoint: number): number {
  return Math.min(concurrency, Math.max(slotsPerEndpoint, Math.floor(concurrency / 4)));
}

/**
 * Places per tenant: at most `perTenant` of a dispatcher's sends (claimed, let in, until the
 * send ends) are one tenant's at once, so one tenant's slow or hung receivers can never hold
 * every place while another tenant has due work. A delivery over its tenant's share is not
 * kept here: it goes back to the store, due (a backlog of any size waits there, indexed), the
 * tenant is marked, and its sends ending down to half its share ask for a sweep that brings
 * its deliveries back (`give` → refill), as an endpoint's parking does. A tenant whose store
 * calls are refused for overload (TenantHolds) has no room for new work until its hold ends: its
 * due deliveries wait in the store unlisted; what it has claimed already is sent.
 */
export class TenantShares {
  /** Places one tenant may hold at once. */
  readonly perTenant: number;
  readonly #taken = new Map<string, number>();
  /** The tenant of each key of #taken. */
  readonly #tenants = new Map<string, Tenant>();
  /** Tenants whose due deliveries were left in the store for want of a share. */
  readonly #overflowed = new Set<string>();

  readonly #holds: TenantHolds | undefined;

  constructor(perTenant: number, holds?: TenantHolds) {
    this.perTenant = perTenant;
    this.#holds = holds;
  }

  /**
   * The tenants holding their whole share now (at most places ÷ share: a read of the tenants with
   * sends), and those whose new work is held for a store overload.
   */
  fullTenants(): Tenant[] {
    const full: Tenant[] = [];
    for (const [key, taken] of this.#taken) if (taken >= this.perTenant) full.push(this.#tenants.get(key)!);
    for (const tenant of this.#holds?.heldTenants() ?? []) if (this.taken(tenant) < this.perTenant) full.push(tenant);
    return full;
  }

  /** Whether `tenant`'s new work is held for a store overload now (TenantHolds). */
  held(tenant: Tenant): boolean {
    return this.#holds?.held(tenant) === true;
  }

  /** When the first hold for a store overload ends (clock ms; TenantHolds), null when none is on. */
  heldUntil(): number | null {
    return this.#holds?.nextEnd() ?? null;
  }

  /** Places `tenant` holds now. */
  taken(tenant: Tenant): number {
    return this.#taken.get(tenantKey(tenant)) ?? 0;
  }

  /**
   * Whether `tenant` has room for `more` + 1 sends beyond what it holds (the sweep counts what
   * it published for the tenant). When not, the tenant is marked: its sends ending ask for a sweep.
   * Never while it is held (TenantHolds), whose end asks for its own sweep.
   */
  hasRoom(tenant: Tenant, more = 0): boolean {
    return !this.held(tenant) && this.#shareHasRoom(tenant, more);
  }

  #shareHasRoom(tenant: Tenant, more: number): boolean {
    const key = tenantKey(tenant);
    if ((this.#taken.get(key) ?? 0) + more < this.perTenant) return true;
    this.#overflowed.add(key);
    return false;
  }

  /**
   * A sweep's page listed as many of `tenant`'s due deliveries as the store gives a tenant: it
   * may have more there. Marked, as a tenant over its share is: its sends ending ask for a sweep.
   */
  mayHaveMore(tenant: Tenant): void {
    // A tenant held for an overload and under its share: the hold's end sweeps for it (a mark would outlive a tenant
    // that never sends here again).
    if (this.held(tenant) && this.taken(tenant) < this.perTenant) return;
    this.#overflowed.add(tenantKey(tenant));
  }

  /** Takes a place of `tenant`'s share; false (the tenant marked) when it holds all of them. A held tenant's claimed work is sent. */
  tryTake(tenant: Tenant): boolean {
    if (!this.#shareHasRoom(tenant, 0)) return false;
    const key = tenantKey(tenant);
    this.#taken.set(key, (this.#taken.get(key) ?? 0) + 1);
    this.#tenants.set(key, tenant);
    return true;
  }

  /**
   * Gives a place of `tenant`'s share back. @returns true when deliveries of it were left in
   * the store and it is now down to half its share: the caller sweeps for them. Half, not at
   * every send's end: one sweep (one indexed query) then refills many, and its round trip
   * overlaps the rest's sends.
   */
  give(tenant: Tenant): boolean {
    const key = tenantKey(tenant);
    const left = (this.#taken.get(key) ?? 1) - 1;
    if (left > 0) this.#taken.set(key, left);
    else {
      this.#taken.delete(key);
      this.#tenants.delete(key);
    }
    // Held for an overload: no sweep for it now (it would list nothing of the tenant's), its mark kept for after the hold.
    return left <= this.perTenant / 2 && !this.held(tenant) && this.#overflowed.delete(key);
  }
}
