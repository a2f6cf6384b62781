// The gateway as its own process (cluster mode): public HTTP API, rate limits in Redis,
// messages handed to message-intake and recoveries to the recovery service over gRPC.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing starts before anything else loads, so ioredis is instrumented as it is imported:
// everything below is imported dynamically (static imports would all load first).
const tracing = await startTracing({ serviceName: 'gateway' });
const { httpComponent, listenerCheck, loadConfig, runService } = await import('@wirehook/platform');
const { createGateway } = await import('./create-gateway.ts');
const { clusterGatewayDeps } = await import('./cluster-deps.ts');
const { gatewayConfigSchema } = await import('./config.ts');

const config = loadConfig(gatewayConfigSchema, process.env, 'gateway');

await runService('gateway', config, async (ctx) => {
  const { deps, components } = await clusterGatewayDeps(config, ctx);
  const api = httpComponent('api', createGateway(deps), { port: config.PORT, host: config.HOST, variable: 'PORT' });
  // Ready while it listens (stopped first on SIGTERM: out of the Service while draining).
  ctx.readiness.push(listenerCheck(api));
  return [
    // Stopped last: it exports the spans of the requests drained before it.
    tracing,
    ...components,
    api,
  ];
});
