// The egress relay as its own process: sends fixed_ip endpoints' webhooks from the fixed IP
// pool (RELAY_SOURCE_IPS) for the dispatchers, over gRPC. In Kubernetes it runs on the nodes
// whose addresses customers allowlist.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'egress-relay' });
const { AddressPolicy, lookupWithOverrides, parseResolveOverrides, systemLookup } = await import('@wirehook/egress');
const { loadConfig, runService } = await import('@wirehook/platform');
const { relayConfigSchema } = await import('./config.ts');
const { startRelayGrpcServer } = await import('./grpc-server.ts');
const { EgressRelay } = await import('./relay.ts');
const { addressesNotOnThisHost } = await import('./relay-sources.ts');

const config = loadConfig(relayConfigSchema, process.env, 'egress-relay');

await runService('egress-relay', config, ({ logger, registry, readiness }) => {
  const relay = new EgressRelay({
    pool: config.RELAY_SOURCE_IPS,
    policy: new AddressPolicy({ allowHosts: config.DELIVERY_ALLOW_HOSTS }),
    lookup: lookupWithOverrides(parseResolveOverrides(config.DELIVERY_RESOLVE), systemLookup),
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connectionsPerOrigin: config.ENDPOINT_SLOTS,
    registry,
  });
  // Without a pool every fixed_ip send fails (by design): not ready, and it says why.
  readiness.push({
    name: 'source_ips',
    gates: true,
    probe: async () => {
      if (!relay.hasSources) throw new Error('RELAY_SOURCE_IPS is empty: no address to send fixed_ip webhooks from');
      const missing = await addressesNotOnThisHost(config.RELAY_SOURCE_IPS);
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
