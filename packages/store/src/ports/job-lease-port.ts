/**
 * Named leases for work one process should do at a time across every replica (retention, a
 * layout upgrade). Times are in ms.
 */
export interface JobLeaseRepo {
  /**
   * Gives the lease to `holder` for `until - now` ms when it is free, expired, already that
   * holder's (a renewal), or ends more than one lease past the end a take now would set (a lease
   * timed by a clock that ran that far ahead, whose holder then died, must not keep the job for
   * as long as that clock was off; one off by less keeps it).
   *
   * Whose clock times the lease is the store's: SQLite's is the caller's (`now`: the processes
   * that share one file share one host's clock); MongoDB's is the server's (`$$NOW`), so
   * replicas whose clocks disagree still share one lease, and "one lease" in the take-over rule
   * is the holder's own length. The answer carries the time of the take by that clock, for work
   * that must be judged by one clock across replicas (retention's window).
   * @returns `{ at }`, the take's time by the store's clock, when `holder` holds it now; else null.
   */
  take(name: string, holder: string, now: number, until: number): Promise<LeaseTaken | null>;
  /** Ends `holder`'s lease at once, if it still holds it, so another need not wait for its expiry. */
  release(name: string, holder: string): Promise<void>;
}

/** A lease held: when it was taken (or renewed), by the clock that times it. */
export interface LeaseTaken {
  at: number;
}

/** The end past which another holder's lease is taken over by one taking it at `now` until `until`. */
export function beyondOneLease(now: number, until: number): number {
  return until + (until - now);
}
