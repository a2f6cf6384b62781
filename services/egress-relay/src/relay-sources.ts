import { createHash } from 'node:crypto';
import { createServer, isIP } from 'node:net';
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
    for (const entry of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const family = isIP(entry);
      if (family === 0) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(entry)} is not an IPv4 or IPv6 address (comma-separated addresses of this host, e.g. 203.0.113.7,2001:db8::7)`,
        });
        return z.NEVER;
      }
      (family === 4 ? pool.v4 : pool.v6).push(entry);
    }
    return pool;
  });

/**
 * The sources one endpoint's connections use: one address per family, the same one every
 * time, from every relay replica. A customer who allowlists the pool sees a stable address
 * per endpoint, which keeps its keep-alive connections and its logs readable; endpoints
 * spread evenly over the pool.
 *
 * Rendezvous hashing (each address scores hash(endpoint id, address); the highest wins)
 * rather than hash modulo the pool's size: adding an address moves only the endpoints it
 * now wins (1 in n+1), removing one moves only its own endpoints. With a modulo, growing
 * a pool of 3 to 4 would move three endpoints in four.
 */
export function sourcesFor(pool: RelayPool, endpointId: string): SourceAddresses {
  return { v4: highestScoring(pool.v4, endpointId), v6: highestScoring(pool.v6, endpointId) };
}

function highestScoring(addresses: readonly string[], endpointId: string): string | undefined {
  let best: { address: string; score: bigint } | undefined;
  for (const address of addresses) {
    const score = createHash('sha256').update(endpointId).update('\0').update(address).digest().readBigUInt64BE(0);
    if (best === undefined || score > best.score) best = { address, score };
  }
  return best?.address;
}

export function poolSize(pool: RelayPool): number {
  return pool.v4.length + pool.v6.length;
}

/**
 * The pool's addresses this host cannot bind (not one of its addresses: a typo, or a
 * floating IP not attached yet). Sends from them would fail, so the relay is not ready
 * while there is one. Asked of the kernel each time: addresses come and go at runtime.
 */
export async function addressesNotOnThisHost(pool: RelayPool): Promise<string[]> {
  const bindable = await Promise.all([...pool.v4, ...pool.v6].map(async (address) => ({ address, ok: await canBind(address) })));
  return bindable.filter((a) => !a.ok).map((a) => a.address);
}

function canBind(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: address, port: 0, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
