import type { BenchContext } from '../context.ts';
import type { RouteMode } from '../receiver/protocol.ts';
import { closedLoop } from '../load/closed-loop.ts';
import { sendBody } from './payload.ts';
import type { Tenant } from './tenants.ts';

/** One endpoint made for a scenario, and its receiver route. */
export interface BenchEndpoint {
  id: string;
  tenant: Tenant;
  route: string;
  group: string;
}

/** Where one message goes: a consumer (by external id) of a tenant, and its endpoints. */
export interface Target {
  tenant: Tenant;
  consumer: string;
  endpoints: BenchEndpoint[];
  /** The POST /v1/messages body for this consumer, made once. */
  body: string;
}

export interface TopologySpec {
  /** Unique among the bench's topologies: names consumers and routes. */
  name: string;
  consumers: number;
  endpointsPerConsumer: number;
  /** The receiver group of an endpoint; its mode is `ok`. */
  group(consumer: number, endpoint: number): string;
  /** Pause every endpoint right after it is made. */
  paused?: boolean;
  /** More fields of each endpoint's POST /v1/endpoints body (e.g. `transformation`). */
  endpointFields?: Record<string, unknown>;
}

export interface Topology {
  targets: Target[];
  endpoints: BenchEndpoint[];
}

const SETUP_CONCURRENCY = 8;

/**
 * Creates consumers (spread over the tenants, consumer i on tenant i mod n, so consecutive
 * messages land on different rate-limit buckets) and their endpoints at receiver routes.
 */
export async function buildTopology(ctx: BenchContext, spec: TopologySpec): Promise<Topology> {
  const { api, receiver, tenants } = ctx;
  const targets: Target[] = [];
  for (let c = 0; c < spec.consumers; c++) {
    const tenant = tenants[c % tenants.length]!;
    const consumer = `${spec.name}-c${c}`;
    targets.push({ tenant, consumer, endpoints: [], body: sendBody(consumer, ctx.payload) });
  }
  await closedLoop(0, targets.length, SETUP_CONCURRENCY, async (c) => {
    const target = targets[c]!;
    const created = await api.expect(201, 'POST', '/v1/consumers', target.tenant.key, { external_id: target.consumer });
    const routes: { id: string; secret: string; mode: RouteMode; group: string }[] = [];
    for (let e = 0; e < spec.endpointsPerConsumer; e++) {
      const route = `${target.consumer}-e${e}`;
      const group = spec.group(c, e);
      const endpoint = await api.expect(201, 'POST', '/v1/endpoints', target.tenant.key, {
        consumer_id: created.id,
        url: receiver.url(route),
        ...spec.endpointFields,
      });
      routes.push({ id: route, secret: endpoint.secret, mode: 'ok', group });
      target.endpoints.push({ id: endpoint.id, tenant: target.tenant, route, group });
    }
    await receiver.addRoutes(routes);
  });
  const endpoints = targets.flatMap((t) => t.endpoints);
  if (spec.paused) await setStatus(ctx, endpoints, 'paused');
  return { targets, endpoints };
}

/** PATCHes every endpoint to `status` (resuming releases its held deliveries). */
export async function setStatus(ctx: BenchContext, endpoints: BenchEndpoint[], status: 'active' | 'paused'): Promise<void> {
  await closedLoop(0, endpoints.length, SETUP_CONCURRENCY, async (i) => {
    const endpoint = endpoints[i]!;
    await ctx.api.expect(200, 'PATCH', `/v1/endpoints/${endpoint.id}`, endpoint.tenant.key, { status });
  });
}

/** Deletes the endpoints: their open deliveries fail, so nothing of a scenario outlives it. */
export async function removeEndpoints(ctx: BenchContext, endpoints: BenchEndpoint[]): Promise<void> {
  await closedLoop(0, endpoints.length, SETUP_CONCURRENCY, async (i) => {
    const endpoint = endpoints[i]!;
    await ctx.api.expect(204, 'DELETE', `/v1/endpoints/${endpoint.id}`, endpoint.tenant.key);
  });
}

/** Deliveries per receiver group that `count` messages from index `from` make, round-robin over `targets`. */
export function expectedByGroup(targets: Target[], from: number, count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = from; i < from + count; i++) {
    for (const endpoint of targets[i % targets.length]!.endpoints) out[endpoint.group] = (out[endpoint.group] ?? 0) + 1;
  }
  return out;
}
