// The customer portal as its own process (cluster mode): the page customers open from a
// portal link, and its token-scoped API — the gateway's routes, in this process, with the
// same store, rate limits and gRPC clients (so an API outage does not take the page down).
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'portal' });
const { httpComponent, listenerCheck, loadConfig, runService } = await import('@wirehook/platform');
const { clusterGatewayDeps, gatewayConfigSchema } = await import('@wirehook/gateway');
const { createPortalApp } = await import('./create-portal-app.ts');

// The gateway's settings; PORT is the portal's own (default 8081, PORTAL_PORT in the launcher).
const config = loadConfig(gatewayConfigSchema, { PORT: '8081', ...process.env }, 'portal');

await runService('portal', config, async (ctx) => {
  const { deps, components } = await clusterGatewayDeps(config, ctx);
  const portal = httpComponent('portal', createPortalApp(deps), { port: config.PORT, host: config.HOST, variable: 'PORT' });
  // Ready while it listens (see the gateway's main).
  ctx.readiness.push(listenerCheck(portal));
  return [tracing, ...components, portal];
});
