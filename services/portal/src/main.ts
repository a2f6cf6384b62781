// portal as its own process. Its feature — the customer settings page — is not built yet: it starts,
// reports healthy on METRICS_PORT (/healthz, /metrics) and does nothing else, so the
// cluster and the Helm chart already have its place.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'portal' });
const { z } = await import('zod');
const { loadConfig, logEnv, runService, serveEnv } = await import('@wirehook/platform');

const config = loadConfig(z.object({ ...serveEnv(9470), ...logEnv }), process.env, 'portal');

await runService('portal', config, () => [tracing]);
