// Claims held back while the store says it is overloaded (core's UnavailableError `overloaded`:
// MongoDB refusing work under admission control, or its time limits running out).
import type { Clock } from '@wirehook/core';

/** The first hold after the store took work again; each overload after a hold ended doubles it, up to the last. */
export const CLAIM_HOLD_FIRST_MS = 250;
export const CLAIM_HOLD_MAX_MS = 4_000;

/**
 * When new claims may go to the store. A claim sends a webhook whose completion an overloaded
 * database would likely refuse too — the delivery then sent again after its lease, to a receiver
 * that had it — and adds a write of its own to the load that refused it. The driver backs off
 * each call it retries; this backs the dispatcher's new work off as a whole: after an overload,
 * claims wait out a hold (their places kept, so sweeps and pulls stop filling them), doubling
 * while overloads follow the holds, and back to the first once a completion is written after one.
 * Completions and releases never wait: they finish work already done. A hold ends by the clock
 * (at most CLAIM_HOLD_MAX_MS), never by a probe, so a store that stays refused is asked again
 * by the waiting claims at each hold's end, and nothing is dropped.
 */
export class ClaimHold {
  readonly #clock: Clock;
  /** The hold's end (clock ms); 0 or past: none. */
  #until = 0;
  /** The last hold's length; 0 once a completion was written after it. */
  #lastMs = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * A store call refused for overload. @returns the new hold's length, or null when one is on
   * already (the calls in flight when it began refused too: one overload, not many).
   */
  overloaded(): number | null {
    const now = this.#clock.now();
    if (now < this.#until) return null;
    this.#lastMs = this.#lastMs === 0 ? CLAIM_HOLD_FIRST_MS : Math.min(CLAIM_HOLD_MAX_MS, this.#lastMs * 2);
    this.#until = now + this.#lastMs;
    return this.#lastMs;
  }

  /** A completion written: the next overload after this hold holds for the first length again. */
  completed(): void {
    if (this.#clock.now() >= this.#until) this.#lastMs = 0;
  }

  /** How long a claim asked for now waits (ms; 0: none). A clock stepping back shortens it to the longest hold. */
  remainingMs(): number {
    return Math.max(0, Math.min(CLAIM_HOLD_MAX_MS, this.#until - this.#clock.now()));
  }
}
