import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { SourceAddresses } from '@wirehook/egress';
import { z } from 'zod';

/** The fixed IP pool: the source addresses the relay binds its connections to, by family. */
export interface RelayPool {
  v4: string[];
  v6: string[];
}

/** RELAY_SOURCE_IPS: comma-separated IPv4/IPv6 addresses; empty means no pool. */
export const relaySourceIpsVar = z
  .string()
  .default('')
  .transform((value, ctx): RelayPool => {
    const pool: RelayPool = { v4: [], v6: [] };
    for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
      const family = isIP(entry);
      if (family === 0) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address (comma-separated addresses of this host, e.g. 203.0.113.7,2001:db8::7)` });
        return z.NEVER;
      }
      (family === 4 ? pool.v4 : pool.v6).push(entry);
    }
    return pool;
  });

/**
 * The sources one endpoint's connections use: one address per family, the same one every
 * time (a hash of the endpoint id over the pool). A customer who allowlists the pool sees a
 * stable address per endpoint, which keeps its keep-alive connections and its logs readable;
 * endpoints spread evenly over the pool. Changing the pool moves some endpoints.
 */
export function sourcesFor(pool: RelayPool, endpointId: string): SourceAddresses {
  const h = createHash('sha256').update(endpointId).digest().readUInt32BE(0);
  return {
    v4: pool.v4.length === 0 ? undefined : pool.v4[h % pool.v4.length],
    v6: pool.v6.length === 0 ? undefined : pool.v6[h % pool.v6.length],
  };
}

export function poolSize(pool: RelayPool): number {
  return pool.v4.length + pool.v6.length;
}
