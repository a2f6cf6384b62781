/**
 * Named leases for work one process should do at a time across every replica (retention):
 * `take` gives the lease to `holder` until `until` when it is free, expired, or already
 * that holder's (a renewal). @returns whether `holder` holds it now.
 */
export interface JobLeaseRepo {
  take(name: string, holder: string, now: number, until: number): Promise<boolean>;
}
