import { createHash } from 'node:crypto';
import { createServer, isIP } from 'node:net';
import type { SourceAddresses } from '@wirehook/egress';
import type { RelayPool } from '@wirehook/platform';
import { z } from 'zod';

// RELAY_SOURCE_IPS's parser lives in @wirehook/platform: the gateway reads the pool too (GET /v1/egress-ips).
export { relaySourceIpsVar, type RelayPool } from '@wirehook/platform';

/**
 * How the pool's addresses reach the internet (RELAY_EGRESS_MODE): `bind`, the relay binds
 * each connection to a pool address of its host (bare metal, floating IPs); `nat`, the relay's
 * pods sit behind a NAT gateway that owns the addresses (EKS, GKE, AKS), so it binds nothing.
 */
export const RELAY_EGRESS_MODES = ['bind', 'nat'] as const;
export type RelayEgressMode = (typeof RELAY_EGRESS_MODES)[number];

export const relayEgressModeVar = z
  .enum(RELAY_EGRESS_MODES, {
    error: 'must be bind (the relay binds the pool addresses of its host) or nat (a NAT gateway in front of it owns them)',
  })
  .default('bind');

/**
 * The sources one endpoint's connections use in `bind` mode: one address per family, the
 * same one every time, from every relay replica. A customer who allowlists the pool sees a stable address
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

/**
 * In `nat` mode: keep to the families the pool has, bind nothing. The values only label the
 * connections: the NAT picks the address.
 */
export function natSources(pool: RelayPool): SourceAddresses {
  return { v4: pool.v4.join(',') || undefined, v6: pool.v6.join(',') || undefined, bind: false };
}

/**
 * The source address recorded for a connection through the NAT (local address `localAddress`,
 * the pod's): the pool's address of that family, or when the pool has several of the family,
 * all of them joined by "," — the relay cannot know which one the NAT gateway used.
 */
export function natSourceIp(pool: RelayPool, localAddress: string): string {
  const v4 = isIP(localAddress) === 4 || (localAddress.startsWith('::ffff:') && isIP(localAddress.slice(7)) === 4);
  // Never the family without addresses: natSources keeps connections to the pool's families.
  return (v4 ? pool.v4 : pool.v6).join(',') || localAddress;
}

export function poolSize(pool: RelayPool): number {
  return pool.v4.length + pool.v6.length;
}

/**
 * The pool's addresses this host cannot bind (not one of its addresses: a typo, or a
 * floating IP not attached yet). Sends from them would fail, so a relay in `bind` mode is
 * not ready while there is one. Asked of the kernel each time: addresses come and go at
 * runtime.
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
