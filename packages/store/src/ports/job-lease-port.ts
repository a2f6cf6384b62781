/**
 * Named leases for work one process should do at a time across every replica (retention, a
 * layout upgrade). Times are the caller's clock, in ms.
 */
export interface JobLeaseRepo {
  /**
   * Gives the lease to `holder` until `until` when it is free, expired, already that holder's
   * (a renewal), or held more than one lease (`until - now`) beyond `until`: a holder whose
   * clock ran that far ahead, then died, must not keep the job for as long as its clock was off,
   * while one whose clock is off by less keeps it. Clocks further apart than one lease cannot
   * share a lease timed by them: each then finds the other's lease expired, and both run the job
   * (keep them synchronised).
   * @returns whether `holder` holds it now.
   */
  take(name: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Ends `holder`'s lease at once, if it still holds it, so another need not wait for its expiry. */
  release(name: string, holder: string): Promise<void>;
}

/** The end past which another holder's lease is taken over by one taking it at `now` until `until`. */
export function beyondOneLease(now: number, until: number): number {
  return until + (until - now);
}
