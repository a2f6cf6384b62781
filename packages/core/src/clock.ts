/** The one source of "now" for domain code; tests move a ManualClock instead of sleeping. */
export interface Clock {
  /** Current time, Unix milliseconds. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }

  /** Jumps to an absolute time. */
  set(ms: number): void {
    this.#now = ms;
  }
}
