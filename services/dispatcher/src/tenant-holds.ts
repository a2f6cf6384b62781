// A tenant's new work held back while the store refuses its calls for overload (core's
// UnavailableError `overloaded`: MongoDB shedding load under admission control, or its time limits
// running out on the tenant's shard).
import { type Clock, type Tenant, tenantKey } from '@wirehook/core';

/** The first hold; each overload after a hold ended (a call sent after it) doubles it, up to the last. */
export const HOLD_FIRST_MS = 250;
export const HOLD_MAX_MS = 4_000;

interface Hold {
  tenant: Tenant;
  /** The hold's end (clock ms). */
  until: number;
  /** Its length; the next overload after it doubles it. */
  ms: number;
}

/**
 * Which tenants' due deliveries wait in the store for now. A webhook sent while the database
 * refuses its tenant's writes would likely have its completion refused too — sent again after
 * its lease, to a receiver that had it — and its claim adds a write to the load that refused it.
 * The driver backs each call it retries off; this backs the dispatcher's new work for the tenant
 * off: a held tenant has no room in its share (TenantShares), so sweeps leave its deliveries
 * unlisted and its wake-ups unclaimed, as for a tenant over its share, and a sweep is asked for at
 * the hold's end. Per tenant, not the whole process: on a cluster sharded by organization, one
 * tenant's hot shard does not hold the others'; a replica set refusing everyone holds every tenant
 * whose calls it refuses. Sends under way, their completions and releases go on.
 *
 * A hold lasts 250 ms, doubling while the overloads come from calls sent after the last hold
 * ended, up to 4 s; a call sent before it ended (one that waited out a time limit) only tells of
 * the overload that began it. A completion written after a hold ended, or a quiet hold's length
 * after it, starts again at 250 ms. A clock stepping back moves the holds back with it.
 */
export class TenantHolds {
  readonly #clock: Clock;
  readonly #holds = new Map<string, Hold>();
  /** The clock's time at the last read (a step back is seen by it). */
  #lastNow = Number.NEGATIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * A store call of `tenant`'s, sent at `sentAt`, refused for overload. @returns the new hold's
   * end, or null when none began: one is on, or the call was sent before the last one ended.
   */
  overloaded(tenant: Tenant, sentAt: number): number | null {
    const key = tenantKey(tenant);
    const now = this.#now();
    const last = this.#holds.get(key);
    if (last !== undefined && (last.until > now || sentAt < last.until)) return null;
    const quiet = last === undefined || now >= last.until + last.ms;
    const ms = quiet ? HOLD_FIRST_MS : Math.min(HOLD_MAX_MS, last.ms * 2);
    const hold = { tenant, until: now + ms, ms };
    this.#holds.set(key, hold);
    return hold.until;
  }

  /** A completion of `tenant`'s written: once its hold is over, the next starts at the first length. */
  completed(tenant: Tenant): void {
    const key = tenantKey(tenant);
    const now = this.#now();
    const hold = this.#holds.get(key);
    if (hold !== undefined && hold.until <= now) this.#holds.delete(key);
  }

  /** Whether `tenant`'s new work is held now. */
  held(tenant: Tenant): boolean {
    const now = this.#now(); // first: it moves the holds when the clock stepped back
    const hold = this.#holds.get(tenantKey(tenant));
    return hold !== undefined && hold.until > now;
  }

  /** The tenants held now (the holds past their quiet length forgotten). */
  heldTenants(): Tenant[] {
    const now = this.#now();
    const held: Tenant[] = [];
    for (const [key, hold] of this.#holds) {
      if (hold.until > now) held.push(hold.tenant);
      else if (now >= hold.until + hold.ms) this.#holds.delete(key);
    }
    return held;
  }

  /**
   * How many tenants are held now, reading nothing into the holds (a scrape's: it neither forgets
   * holds nor moves them for a clock that stepped back, which the next call that acts does).
   */
  heldCount(): number {
    const now = this.#clock.now();
    const back = Math.max(0, this.#lastNow - now);
    let held = 0;
    for (const { until } of this.#holds.values()) if (until - back > now) held++;
    return held;
  }

  /** The earliest end of the holds on now (clock ms); null when none is. */
  nextEnd(): number | null {
    const now = this.#now();
    let next: number | null = null;
    for (const { until } of this.#holds.values()) if (until > now && (next === null || until < next)) next = until;
    return next;
  }

  /** Tenants remembered (held, or within a hold's length after one): a test's, and a leak's, measure. */
  get size(): number {
    return this.#holds.size;
  }

  /**
   * The clock's time, every hold moved back with it when it stepped back since last read: what
   * was left of a hold is left, and a hold over stays over.
   */
  #now(): number {
    const now = this.#clock.now();
    if (now < this.#lastNow) for (const hold of this.#holds.values()) hold.until -= this.#lastNow - now;
    this.#lastNow = now;
    return now;
  }
}
