// The gateway as its own process (cluster mode): public HTTP API, rate limits in Redis,
// messages handed to message-intake and recoveries to the recovery service over gRPC.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing starts before anything else loads, so ioredis is instrumented as it is imported:
// everything below is imported dynamically (static imports would all load first).
const tracing = await startTracing({ serviceName: 'gateway' });
const { SERVICE_STOP_MS } = await import('@wirehook/core/without-schemas');
const { connectNatsAtStart, natsBusOptions, httpComponent, listenerCheck, loadConfig, runService } = await import('@wirehook/platform');
const { NatsBus } = await import('@wirehook/bus');
const { ListenHub } = await import('@wirehook/egress');
const { ListenServer } = await import('@wirehook/http-api');
const { ListenBridge } = await import('./listen-bridge.ts');
const { createGateway } = await import('./create-gateway.ts');
const { clusterGatewayDeps } = await import('./cluster-deps.ts');
const { gatewayConfigSchema } = await import('./config.ts');

const config = loadConfig(gatewayConfigSchema, process.env, 'gateway');
/** The most the gateway's stop waits for listeners to answer the webhooks they hold: half of its stop (core's SERVICE_STOP_MS), the API's drain after it. */
const GATEWAY_LISTEN_DRAIN_MS = SERVICE_STOP_MS / 2;

await runService('gateway', config, async (ctx) => {
  const { deps, components } = await clusterGatewayDeps(config, ctx);
  // `wirehook listen`: the CLI's WebSocket on this pod, its webhooks from the dispatchers over NATS.
  // Read as it builds: a NATS_* problem (a credentials file gone since the config was read) fails the start before anything starts.
  const nats = natsBusOptions(config);
  const listeners = new ListenBridge({
    hub: new ListenHub({ clock: ctx.clock, timeoutMs: config.DELIVERY_TIMEOUT_MS }),
    connect: (signal) => connectNatsAtStart(nats, (options) => NatsBus.connect({ ...options, name: 'gateway', streams: [] }), ctx.logger, signal),
    logger: ctx.logger.child({ component: 'listen' }),
  });
  const listen = new ListenServer({ ...deps, logger: ctx.logger.child({ component: 'listen' }), hub: listeners, drainMs: GATEWAY_LISTEN_DRAIN_MS });
  const api = httpComponent('api', createGateway(deps), { port: config.PORT, host: config.HOST, variable: 'PORT', upgrade: listen.upgrade });
  // Ready while it listens, and not once its stop begins (runService; preStop's 5 s before the SIGTERM take the pod out
  // of the Service); the API itself serves on through the listeners' drain, at most GATEWAY_LISTEN_DRAIN_MS.
  ctx.readiness.push(listenerCheck(api));
  return [
    // Stopped last: it exports the spans of the requests drained before it.
    tracing,
    ...components,
    listeners,
    api,
    // Stopped first, before the API's own drain: the listeners' webhooks in flight are answered, then their connections close.
    { name: 'listen', start: async () => {}, stop: () => listen.close() },
  ];
});
