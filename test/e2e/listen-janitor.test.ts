// The listener janitor: a listener endpoint whose process crashed (its WebSocket's close never
// ran, so no 60 s removal was set) is found by a sweep of every tenant's listeners and removed
// once it has had the same time to be connected again — unless it is connected here or served
// by another gateway. Run on a ListenServer of its own over the harness's store, with a short
// wait (the product's is LISTENER_GONE_AFTER_MS, 60 s).
import { newId, type Endpoint, type Tenant } from '@wirehook/core';
import { ListenHub, type ListenerRegistry } from '@wirehook/egress';
import { ListenServer } from '@wirehook/http-api';
import { silentLogger } from '@wirehook/platform';
import { eventually } from '@wirehook/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { plainEndpoint } from '../../packages/store/test/contract/fixtures.ts';
import { startWirehook, type Harness } from '../support/harness.ts';

let wh: Harness;
beforeAll(async () => {
  wh = await startWirehook();
}, 60_000);
afterAll(async () => {
  await wh?.close();
});

async function endpointOf(t: Tenant, consumerId: string, overrides: Partial<Endpoint>): Promise<Endpoint> {
  const endpoint = plainEndpoint(newId('endpoint', wh.clock), consumerId as never, wh.clock.now(), overrides);
  return wh.embedded.store.endpoints.create(t, endpoint, { sealed: 'v1.unused', createdAt: wh.clock.now(), expiresAt: null }, 20);
}

it('removes listeners left by a crash after the wait; keeps one connected here, one served elsewhere, and every http endpoint', async () => {
  const a = await wh.tenant({ env: 'test' });
  const b = await wh.tenant({ env: 'test' });
  const tenantA = { orgId: a.orgId, env: a.env } as Tenant;
  const tenantB = { orgId: b.orgId, env: b.env } as Tenant;
  const consumerA = (await a.api.post('/v1/consumers', { external_id: 'dev-a' })).body.id;
  const consumerB = (await b.api.post('/v1/consumers', { external_id: 'dev-b' })).body.id;
  const listen = { type: 'listen' as const, url: 'http://localhost:3000/webhook' };
  const crashedA = await endpointOf(tenantA, consumerA, listen);
  const crashedB = await endpointOf(tenantB, consumerB, listen);
  const connectedHere = await endpointOf(tenantA, consumerA, listen);
  const elsewhere = await endpointOf(tenantB, consumerB, listen);
  const http = await endpointOf(tenantA, consumerA, { type: 'http' });

  const hub = new ListenHub({ clock: wh.clock, timeoutMs: 1_000 });
  hub.attach(connectedHere.id, { send: () => {} });
  const asked: string[] = [];
  const registry: ListenerRegistry = {
    attach: (id, c) => hub.attach(id, c),
    detach: (id, c) => hub.detach(id, c),
    connected: (id) => hub.connected(id),
    answer: (c, f) => hub.answer(c, f),
    drain: (withinMs, release) => hub.drain(withinMs, release),
    servedElsewhere: async (id) => {
      asked.push(id);
      return id === elsewhere.id;
    },
  };
  const server = new ListenServer({
    store: wh.embedded.store,
    clock: wh.clock,
    logger: silentLogger(),
    secretBox: undefined as never, // only a connecting CLI needs it
    hub: registry,
    goneAfterMs: 300,
  });
  try {
    const ids = async (t: typeof a) => ((await t.api.get('/v1/endpoints')).body.items as { id: string }[]).map((e) => e.id).sort();
    await eventually(async () => expect(await ids(a)).toEqual([connectedHere.id, http.id].sort()), 10_000);
    await eventually(async () => expect(await ids(b)).toEqual([elsewhere.id]), 10_000);
    // Asked about the two crashed and the one elsewhere; never about the one connected here.
    expect(new Set(asked)).toEqual(new Set([crashedA.id, crashedB.id, elsewhere.id]));
    expect(await wh.embedded.store.endpoints.get(tenantA, crashedA.id)).toBeNull();
  } finally {
    await server.close();
  }
}, 60_000);
