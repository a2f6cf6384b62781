// alerting as its own process. Its feature — failure notifications to organizations — is not built yet: it starts,
// reports healthy on METRICS_PORT (/healthz, /metrics) and does nothing else, so the
// cluster and the Helm chart already have its place.
import { z } from 'zod';
import { loadConfig, logEnv, runService, serveEnv } from '@wirehook/platform';

const config = loadConfig(z.object({ ...serveEnv(9469), ...logEnv }), process.env, 'alerting');

await runService('alerting', config, () => []);
