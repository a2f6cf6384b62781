import { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup, type LookupFn } from '@wirehook/egress';
import type { Component, Logger, ReadinessCheck } from '@wirehook/platform';
import { relayCallMs } from '@wirehook/core/without-schemas';
import { grpcComponent } from '@wirehook/rpc';
import type { Registry } from 'prom-client';
import { startRelayGrpcServer } from './grpc-server.ts';
import { EgressRelay } from './relay.ts';
import { addressesNotOnThisHost, type RelayEgressMode, type RelayPool } from './relay-sources.ts';

/** The settings the relay's process reads (its config schema defines them). */
export interface RelaySettings {
  GRPC_HOST: string;
  GRPC_PORT: number;
  INTERNAL_AUTH_TOKEN: string;
  RELAY_EGRESS_MODE: RelayEgressMode;
  RELAY_SOURCE_IPS: RelayPool;
  DELIVERY_ALLOW_HOSTS: string;
  DELIVERY_RESOLVE: string;
  DELIVERY_TIMEOUT_MS: number;
  ENDPOINT_SLOTS: number;
}

/** What the composition root already has; `lookup` and `ca` are for tests (DNS mapped, the test CA trusted). */
export interface RelayShared {
  logger: Logger;
  registry?: Registry;
  lookup?: LookupFn;
  ca?: string;
}

const MODES: Record<RelayEgressMode, string> = {
  bind: 'bind mode (each connection bound to a pool address of this host)',
  nat: 'nat mode (connections not bound; the NAT gateway in front sends them from its addresses)',
};

/**
 * The egress relay as its own process has it: the relay (the delivery rules, its pool and
 * mode), served to the dispatchers over gRPC at GRPC_HOST:GRPC_PORT, and the `source_ips`
 * readiness check. Says at once, in one line, which mode and pool it runs with.
 * @returns `components` in start order (the relay's connections, then the gRPC server); the
 * root stops them in reverse.
 */
export function createRelay(
  settings: RelaySettings,
  shared: RelayShared,
): { relay: EgressRelay; readiness: ReadinessCheck; grpc: Component & { port(): number }; components: Component[] } {
  const { logger, registry } = shared;
  const mode = settings.RELAY_EGRESS_MODE;
  const pool = settings.RELAY_SOURCE_IPS;
  const sourceIps = [...pool.v4, ...pool.v6];
  const described = sourceIps.length > 0 ? `pool ${sourceIps.join(', ')}` : 'no pool (RELAY_SOURCE_IPS is empty: every fixed_ip send fails)';
  logger.info({ mode, sourceIps }, `egress relay in ${MODES[mode]}: ${described}`);
  const relay = new EgressRelay({
    pool,
    mode,
    policy: new AddressPolicy({ allowHosts: settings.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(settings.DELIVERY_RESOLVE), shared.lookup ?? systemLookup),
    timeoutMs: settings.DELIVERY_TIMEOUT_MS,
    connectionsPerOrigin: settings.ENDPOINT_SLOTS,
    ca: shared.ca,
    registry,
  });
  // Without a pool every fixed_ip send fails (by design): not ready, and it says why. Only in
  // bind mode must the addresses be this host's: in nat mode they are the NAT gateway's.
  const readiness: ReadinessCheck = {
    name: 'source_ips',
    gates: true,
    probe: async () => {
      if (!relay.hasSources) throw new Error('RELAY_SOURCE_IPS is empty: no address to send fixed_ip webhooks from');
      if (mode === 'nat') return;
      const missing = await addressesNotOnThisHost(pool);
      if (missing.length > 0) throw new Error(`RELAY_SOURCE_IPS has addresses this host does not have: ${missing.join(', ')} (sends from them fail)`);
    },
  };
  const grpc = grpcComponent(() =>
    startRelayGrpcServer({
      relay,
      address: `${settings.GRPC_HOST}:${settings.GRPC_PORT}`,
      authToken: settings.INTERNAL_AUTH_TOKEN,
      logger,
      registry,
      // The sends it holds finish when it is stopped (a rolling update): cut short, each would be recorded failed and sent again.
      shutdownGraceMs: relayCallMs(settings.DELIVERY_TIMEOUT_MS),
    }),
  );
  const connections: Component = { name: 'relay', start: async () => {}, stop: () => relay.close() };
  return { relay, readiness, grpc, components: [connections, grpc] };
}
