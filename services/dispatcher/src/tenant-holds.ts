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
 * after it, starts again at 250 ms. A clock stepping back never lengthens one past its own length.
 */
export class TenantHolds {
  readonly #clock: Clock;
  readonly #holds = new Map<string, Hold>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * A store call of `tenant`'s, sent at `sentAt`, refused for overload. @returns the new hold's
   * end, or null when none began: one is on, or the call was sent before the last one ended.
   */
  overloaded(tenant: Tenant, sentAt: number): number | null {
    const key = tenantKey(tenant);
    const now = this.#clock.now();
    const last = this.#holds.get(key);
    if (last !== undefined && (this.#until(last, now) > now || sentAt < last.until)) return null;
    const quiet = last === undefined || now >= last.until + last.ms;
    const ms = quiet ? HOLD_FIRST_MS : Math.min(HOLD_MAX_MS, last.ms * 2);
    const hold = { tenant, until: now + ms, ms };
    this.#holds.set(key, hold);
    return hold.until;
  }

  /** A completion of `tenant`'s written: once its hold is over, the next starts at the first length. */
  completed(tenant: Tenant): void {
    const key = tenantKey(tenant);
    const hold = this.#holds.get(key);
    if (hold !== undefined && this.#until(hold, this.#clock.now()) <= this.#clock.now()) this.#holds.delete(key);
  }

  /** Whether `tenant`'s new work is held now. */
  held(tenant: Tenant): boolean {
    const hold = this.#holds.get(tenantKey(tenant));
    if (hold === undefined) return false;
    const now = this.#clock.now();
    return this.#until(hold, now) > now;
  }

  /** The tenants held now (the holds past their quiet length forgotten). */
  heldTenants(): Tenant[] {
    const now = this.#clock.now();
    const held: Tenant[] = [];
    for (const [key, hold] of this.#holds) {
      const until = this.#until(hold, now);
      if (until > now) held.push(hold.tenant);
      else if (now >= until + hold.ms) this.#holds.delete(key);
    }
    return held;
  }

  /** The earliest end of the holds on now (clock ms); null when none is. */
  nextEnd(): number | null {
    const now = this.#clock.now();
    let next: number | null = null;
    for (const hold of this.#holds.values()) {
      const until = this.#until(hold, now);
      if (until > now && (next === null || until < next)) next = until;
    }
    return next;
  }

  /** The hold's end, brought back to its length from now when the clock stepped back. */
  #until(hold: Hold, now: number): number {
    if (hold.until - now > hold.ms) hold.until = now + hold.ms;
    return hold.until;
  }
}
