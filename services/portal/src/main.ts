// The customer portal as its own process (cluster mode): the page customers open from a
// portal link, and its token-scoped API (portal-api/), with its own store, rate limits and
// gRPC clients (so an API outage does not take the page down).
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'portal' });
const { httpComponent, listenerCheck, loadConfig, runService } = await import('@wirehook/platform');
const { clusterPortalDeps } = await import('./cluster-deps.ts');
const { portalConfigSchema } = await import('./config.ts');
const { createPortal } = await import('./create-portal.ts');

const config = loadConfig(portalConfigSchema, process.env, 'portal');

await runService('portal', config, async (ctx) => {
  const { deps, components } = await clusterPortalDeps(config, ctx);
  const portal = httpComponent('portal', createPortal(deps), { port: config.PORT, host: config.HOST, variable: 'PORT' });
  // Ready while it listens (see the gateway's main).
  ctx.readiness.push(listenerCheck(portal));
  return [tracing, ...components, portal];
});
