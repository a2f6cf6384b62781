// The egress relay as its own process: sends fixed_ip endpoints' webhooks from the fixed IP
// pool (RELAY_SOURCE_IPS) for the dispatchers, over gRPC. In Kubernetes it runs either on the
// nodes whose addresses customers allowlist (RELAY_EGRESS_MODE=bind), or on a node pool
// whose traffic leaves through a NAT gateway with those addresses (nat).
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'egress-relay' });
const { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } = await import('@wirehook/egress');
const { loadConfig, runService } = await import('@wirehook/platform');
const { relayConfigSchema } = await import('./config.ts');
const { startRelayGrpcServer } = await import('./grpc-server.ts');
const { EgressRelay } = await import('./relay.ts');
const { addressesNotOnThisHost } = await import('./relay-sources.ts');

const MODES = {
  bind: 'bind mode (each connection bound to a pool address of this host)',
  nat: 'nat mode (connections not bound; the NAT gateway in front sends them from its addresses)',
};

const config = loadConfig(relayConfigSchema, process.env, 'egress-relay');

await runService('egress-relay', config, ({ logger, registry, readiness }) => {
  const mode = config.RELAY_EGRESS_MODE;
  const pool = config.RELAY_SOURCE_IPS;
  const sourceIps = [...pool.v4, ...pool.v6];
  const described = sourceIps.length > 0 ? `pool ${sourceIps.join(', ')}` : 'no pool (RELAY_SOURCE_IPS is empty: every fixed_ip send fails)';
  logger.info({ mode, sourceIps }, `egress relay in ${MODES[mode]}: ${described}`);
  const relay = new EgressRelay({
    pool,
    mode,
    policy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), systemLookup),
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectionsPerOrigin: config.ENDPOINT_SLOTS,
    registry,
  });
  // Without a pool every fixed_ip send fails (by design): not ready, and it says why. Only in
  // bind mode must the addresses be this host's: in nat mode they are the NAT gateway's.
  readiness.push({
    name: 'source_ips',
    gates: true,
    probe: async () => {
      if (!relay.hasSources) throw new Error('RELAY_SOURCE_IPS is empty: no address to send fixed_ip webhooks from');
      if (mode === 'nat') return;
      const missing = await addressesNotOnThisHost(pool);
      if (missing.length > 0) throw new Error(`RELAY_SOURCE_IPS has addresses this host does not have: ${missing.join(', ')} (sends from them fail)`);
    },
  });
  let grpc: { stop(): Promise<void> } | undefined;
  return [
    tracing,
    { name: 'relay', start: async () => {}, stop: () => relay.close() },
    {
      name: 'grpc',
      start: async () => {
        grpc = await startRelayGrpcServer({
          relay,
          address: `${config.GRPC_HOST}:${config.GRPC_PORT}`,
          authToken: config.INTERNAL_AUTH_TOKEN,
          logger,
          registry,
        });
      },
      stop: async () => grpc?.stop(),
    },
  ];
});
