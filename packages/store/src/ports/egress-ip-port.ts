import type { EgressAddress } from '@wirehook/core';

/** An address of the fixed IP pool as configured: the address and its family. */
export interface PoolAddress {
  ip: string;
  family: 4 | 6;
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
   * whose time has passed are dropped. The same pool again changes nothing.
   * @returns the addresses this call added and those it started retiring.
   */
  sync(pool: readonly PoolAddress[], now: number, noticeMs: number): Promise<{ added: string[]; retiring: string[] }>;
  /** The addresses listed at `now`: the pool's, then those retiring after `now`; each group by family, then address. */
  list(now: number): Promise<EgressAddress[]>;
}
