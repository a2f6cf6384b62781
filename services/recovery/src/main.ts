// recovery as its own process. Its feature — bulk re-sends of failed deliveries (recoveries) — is not built yet: it starts,
// reports live but never ready on METRICS_PORT (/livez, /readyz, /metrics) and does nothing else, so the
// cluster and the Helm chart already have its place.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'recovery' });
const { z } = await import('zod');
const { loadConfig, logEnv, notBuiltCheck, runService, serveEnv } = await import('@wirehook/platform');

const config = loadConfig(z.object({ ...serveEnv(9468), ...logEnv }), process.env, 'recovery');

await runService('recovery', config, ({ readiness }) => {
  readiness.push(notBuiltCheck('issue 11'));
  return [tracing];
});
