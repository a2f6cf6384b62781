import { clusterApiDeps } from '@wirehook/http-api';
import type { Component, ServiceContext } from '@wirehook/platform';
import type { PortalConfig } from './config.ts';
import type { PortalDeps } from './deps.ts';

/**
 * What the portal needs as its own process (cluster mode): the API's deps, from the one
 * factory the gateway uses too (packages/http-api). No idempotency front: the page sends no
 * Idempotency-Key. `components` stop them.
 */
export async function clusterPortalDeps(config: PortalConfig, ctx: ServiceContext): Promise<{ deps: PortalDeps; components: Component[] }> {
  const { deps, components } = await clusterApiDeps(config, ctx);
  return { deps, components };
}
