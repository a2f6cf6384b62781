// The egress relay as its own process: sends fixed_ip endpoints' webhooks from the fixed IP
// pool (RELAY_SOURCE_IPS) for the dispatchers, over gRPC. In Kubernetes it runs either on the
// nodes whose addresses customers allowlist (RELAY_EGRESS_MODE=bind), or on a node pool
// whose traffic leaves through a NAT gateway with those addresses (nat).
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'egress-relay' });
const { loadConfig, runService } = await import('@wirehook/platform');
const { senderStopMs } = await import('@wirehook/core/without-schemas');
const { relayConfigSchema } = await import('./config.ts');
const { createRelay } = await import('./create-relay.ts');

const config = loadConfig(relayConfigSchema, process.env, 'egress-relay');

// A stop lets the sends it holds finish (create-relay.ts), and a little more.
const stopDeadlineMs = senderStopMs(config.DELIVERY_TIMEOUT_MS);

await runService('egress-relay', { ...config, stopDeadlineMs }, ({ logger, registry, readiness }) => {
  const relay = createRelay(config, { logger, registry });
  readiness.push(relay.readiness);
  return [tracing, ...relay.components];
});
