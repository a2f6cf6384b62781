// alerting as its own process. Its feature — failure notifications to organizations — is not built yet: it starts,
// reports live but never ready on METRICS_PORT (/livez, /readyz, /metrics) and does nothing else, so the
// cluster and the Helm chart already have its place.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'alerting' });
const { z } = await import('zod');
const { loadConfig, logEnv, notBuiltCheck, runService, serveEnv } = await import('@wirehook/platform');

const config = loadConfig(z.object({ ...serveEnv(9469), ...logEnv }), process.env, 'alerting');

await runService('alerting', config, ({ readiness }) => {
  readiness.push(notBuiltCheck('issue 13'));
  return [tracing];
});
