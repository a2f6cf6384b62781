import type { EgressAddress, OrgId } from '@wirehook/core';
import type { NoticeDelivery } from './alert-settings-port.ts';

/** An address of the fixed IP pool as configured: the address and its family. */
export interface PoolAddress {
  ip: string;
  family: 4 | 6;
}

/** What one sync changed in the list. */
export interface PoolSync {
  added: string[];
  /** Back in the pool while still listed as retiring. */
  restored: string[];
  retiring: string[];
}

/**
 * A change of the pool that organizations are still to be told of (alerting walks the
 * organizations with fixed_ip endpoints, a page at a time, from `cursor`).
 */
export interface EgressChange {
  id: string;
  at: number;
  added: string[];
  retiring: string[];
  /** When the retiring addresses stop being listed; null when none retire. */
  retiringAt: number | null;
  /** The last organization told; null before the first. */
  cursor: OrgId | null;
}

/**
 * The addresses fixed_ip endpoints are sent from, as last seen (not tenant-owned: one pool
 * for the whole installation). Kept in the store so that a process started with a changed
 * RELAY_SOURCE_IPS knows what changed, and every gateway lists the same.
 */
export interface EgressIpRepo {
  /**
   * Records `pool` as the configured pool at `now`: an address not listed before is added; a
   * listed one no longer in the pool starts retiring (listed until `now + noticeMs`; one
   * already retiring keeps its time); one in the pool again stops retiring; retired ones
   * whose time has passed are dropped. The same pool again changes nothing. When addresses
   * were added, put back while retiring, or started retiring, and the list was not empty
   * before (a first pool is no change to anyone), an {@link EgressChange} is recorded in the
   * same transaction (its `added` holds the put-back ones too), and any change still pending
   * is marked done: the newest is told, with the whole list.
   * @returns the addresses this call added, those it put back while retiring, and those it started retiring.
   */
  sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<PoolSync>;
  /** The addresses listed at `now`: the pool's, then those retiring after `now`; each group by family, then address. */
  list(now: number): Promise<EgressAddress[]>;
  /** The oldest change whose notices are not all queued; null when there is none. */
  pendingChange(): Promise<EgressChange | null>;
  /** Up to `limit` organizations with a fixed_ip endpoint (any environment) after `after`, by id: one index seek each. */
  fixedIpOrgs(after: OrgId | null, limit: number): Promise<OrgId[]>;
  /**
   * Queues `notices` and moves the change's cursor from `from` to `to` (`done`: the walk
   * ended, the change is told), in one transaction.
   * @returns false, queuing nothing, when the cursor is no longer at `from` (another worker moved it).
   */
  advanceChange(id: string, from: OrgId | null, to: OrgId | null, done: boolean, notices: readonly NoticeDelivery[]): Promise<boolean>;
}
