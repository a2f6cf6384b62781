// What this dispatcher has already put on its way, so a sweep does not publish it twice: noted
// by the sweep (published) and by the attempt path (parked), forgotten when dropped or sent.
import type { DeliveryId } from '@wirehook/core';

/**
 * The due deliveries this dispatcher has put on their way — published by its sweep, or
 * parked here waiting for their endpoint — with when. A sweep publishes none of them again
 * for a lease's length; with several replicas a wake-up may be taken by another one, so
 * entries also expire rather than wait to be cleared here. Those being sent are leased, so
 * no due page lists them: the sweep's over-fetch counts only the others (`listed`).
 */
export class WakeupLedger {
  readonly #leaseMs: number;
  /** On their way, with since when. */
  readonly #since = new Map<DeliveryId, number>();
  /** Those of them being sent. */
  readonly #sending = new Set<DeliveryId>();

  constructor(leaseMs: number) {
    this.#leaseMs = leaseMs;
  }

  /** On their way and still listed as due by the store (published or parked, not being sent). */
  get listed(): number {
    return Math.max(0, this.#since.size - this.#sending.size);
  }

  /** Notes `id` as on its way since `now` (again: from `now`). */
  note(id: DeliveryId, now: number): void {
    this.#since.set(id, now);
  }

  /** Whether `id` went on its way less than a lease's length before `now`: a sweep leaves it alone. */
  isOnItsWay(id: DeliveryId, now: number): boolean {
    const since = this.#since.get(id);
    return since !== undefined && now - since < this.#leaseMs;
  }

  /**
   * Forgets `id`: dropped, not claimable, not parked or not published after all, so a sweep
   * may publish it again. A send of it in flight still counts as being sent until `sent`.
   */
  forget(id: DeliveryId): void {
    this.#since.delete(id);
  }

  /** `id` is being sent: still on its way (a sweep that listed it before the claim must not publish it again), but leased. */
  sending(id: DeliveryId): void {
    if (this.#since.has(id)) this.#sending.add(id);
  }

  /** The send of `id` ended: forgotten. */
  sent(id: DeliveryId): void {
    this.#since.delete(id);
    this.#sending.delete(id);
  }

  /**
   * Forgets what went on its way a lease's length ago: taken elsewhere, or lost, it may be
   * published again. A send of its own in flight is neither: its end forgets it (expired
   * here, it would still be counted as being sent, which `listed` subtracts).
   */
  expire(now: number): void {
    for (const [id, since] of this.#since) {
      // Noted after `now`: the clock has stepped back since. Counted from now, it ends a lease
      // from here; left, it would stay on its way — not published again by this dispatcher — for the step's length too.
      if (since > now) this.#since.set(id, now);
      else if (now - since >= this.#leaseMs && !this.#sending.has(id)) this.#since.delete(id);
    }
  }
}
