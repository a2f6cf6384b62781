// The alerting service as its own process: decides failure notices from the store's outbox
// and the organizations' conditions, and sends them to their targets (webhook, chat, e-mail).
// Replicas may run side by side: every decision is committed against the state it was made on.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'alerting' });
const { loadConfig, openSealingKeys, openStore, runService, storeCheck } = await import('@wirehook/platform');
const { alertingConfigSchema } = await import('./config.ts');
const { createAlerting } = await import('./create-alerting.ts');

const config = loadConfig(alertingConfigSchema, process.env, 'alerting');

await runService('alerting', config, async ({ logger, clock, registry, readiness, signal }) => {
  const store = await openStore(config, { signal });
  // Webhook notices are signed with their target's secret, sealed like endpoints' secrets.
  const keys = await openSealingKeys(config, store, { clock, logger, readiness });
  readiness.push(storeCheck(store));
  const alerting = createAlerting(config, { store, clock, logger, secretBox: keys.box, registry });
  return [tracing, { name: 'store', start: async () => {}, stop: () => store.close() }, ...alerting.components];
});
