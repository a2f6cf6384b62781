// portal as its own process. Its feature — the customer settings page — is not built yet: it starts,
// reports live but never ready on METRICS_PORT (/livez, /readyz, /metrics) and does nothing else, so the
// cluster and the Helm chart already have its place.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'portal' });
const { z } = await import('zod');
const { loadConfig, logEnv, notBuiltCheck, runService, serveEnv } = await import('@wirehook/platform');

const config = loadConfig(z.object({ ...serveEnv(9470), ...logEnv }), process.env, 'portal');

await runService('portal', config, ({ readiness }) => {
  readiness.push(notBuiltCheck('issue 12'));
  return [tracing];
});
