import { EGRESS_IP_NOTICE_MS, type Clock } from '@wirehook/core';
import type { Component, Logger, RelayPool } from '@wirehook/platform';
import type { Store } from '@wirehook/store';

/**
 * At start, records the configured fixed IP pool (RELAY_SOURCE_IPS) in the store, which
 * GET /v1/egress-ips lists — so every gateway lists the same, and a restart with a changed
 * pool knows what changed: addresses taken out stay listed, retiring, for
 * EGRESS_IP_NOTICE_MS. An empty pool records nothing: a gateway started without the variable
 * does not know the pool, and must not retire every address. A store that cannot be reached
 * is logged, not fatal: the list stays as last recorded until the next start.
 */
export function egressIpSync(deps: { store: Pick<Store, 'egressIps'>; clock: Clock; logger: Logger; pool: RelayPool }): Component {
  const pool = [...deps.pool.v4.map((ip) => ({ ip, family: 4 as const })), ...deps.pool.v6.map((ip) => ({ ip, family: 6 as const }))];
  return {
    name: 'egress-ip-sync',
    start: async () => {
      if (pool.length === 0) return;
      const now = deps.clock.now();
      try {
        const { added, restored, retiring } = await deps.store.egressIps.sync(pool, now, EGRESS_IP_NOTICE_MS);
        if (added.length + restored.length + retiring.length > 0) {
          // The store recorded the change with the list: the alerting service tells the organizations.
          deps.logger.info(
            { added, restored, retiring, retiring_at: retiring.length > 0 ? now + EGRESS_IP_NOTICE_MS : null },
            'the fixed IP pool changed: GET /v1/egress-ips lists the new addresses, and the removed ones as retiring; ' +
              'organizations with fixed_ip endpoints get an alert.egress_ips notice',
          );
        }
      } catch (err) {
        deps.logger.warn({ err }, 'could not record the fixed IP pool: GET /v1/egress-ips lists it as last recorded');
      }
    },
    stop: async () => {},
  };
}
