// The recovery service as the gateway reaches it in cluster mode: RecoveryGrpcClient → a real
// gRPC server on loopback → RecoveryService on a SQLite store. What the service answers or
// refuses reaches the gateway unchanged; a caller without the INTERNAL_AUTH_TOKEN is refused
// before the service is asked.
import { ConflictError, InvalidError, NotFoundError, type EndpointId, type RecoveryId, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { checkHealth, RecoveryGrpcClient, RpcError, type GrpcServerHandle } from '@wirehook/rpc';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recoveryHandlers, startRecoveryGrpcServer } from './grpc-server.ts';
import { RecoveryService } from './recovery-service.ts';
import { RecoveryScene } from './testing/recovery-scene.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
let scene: RecoveryScene;
let server: GrpcServerHandle;
let client: RecoveryGrpcClient;

beforeAll(async () => {
  scene = new RecoveryScene();
  const recovery = new RecoveryService({ store: scene.store, clock: scene.clock, retentionMonths: 3 });
  server = await startRecoveryGrpcServer({ recovery, address: '127.0.0.1:0', authToken: TOKEN, logger: silentLogger() });
  client = new RecoveryGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN });
});
afterAll(async () => {
  client?.close();
  await server?.stop();
  await scene?.close();
});

/** An endpoint of a new tenant with `failed` failed deliveries. */
async function endpoint(failed = 0): Promise<{ t: Tenant; ep: EndpointId }> {
  const t = await scene.tenant();
  const ep = await scene.endpoint(t);
  await scene.failed(t, ep, failed);
  return { t, ep: ep.id };
}

describe('RecoveryService over gRPC', () => {
  it('start: the recovery the store wrote comes back whole (since and times as numbers); get reads it', async () => {
    const { t, ep } = await endpoint(2);
    const since = scene.clock.now() - 60_000;
    const started = await client.start(t, ep, since);
    expect(started).toEqual({
      id: expect.stringMatching(/^rcv_/),
      endpointId: ep,
      since,
      status: 'running',
      total: 2,
      queued: 0,
      createdAt: scene.clock.now(),
      finishedAt: null,
    });
    expect(await scene.store.recoveries.get(t, ep, started.id)).toEqual(started);
    expect(await client.get(t, ep, started.id)).toEqual(started);
  });

  it('a finished one keeps its finishedAt across the wire', async () => {
    const { t, ep } = await endpoint(0);
    const done = await client.start(t, ep, scene.clock.now() - 1);
    expect(done).toMatchObject({ status: 'done', total: 0, finishedAt: scene.clock.now() });
    expect(await client.get(t, ep, done.id)).toEqual(done);
  });

  it('get of another tenant’s recovery, or of none, is null (not an error)', async () => {
    const { t, ep } = await endpoint(1);
    const started = await client.start(t, ep, scene.clock.now() - 60_000);
    expect(await client.get({ ...t, env: 'test' }, ep, started.id)).toBeNull();
    expect(await client.get(t, ep, 'rcv_01KAAAAAAAAAAAAAAAAAAAAAAA' as RecoveryId)).toBeNull();
  });

  it('the service’s refusals reach the gateway as the same errors: 422 since, 404 endpoint, 409 running', async () => {
    const { t, ep } = await endpoint(1);
    const caught = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (err: unknown) => err,
      );
    const future = await caught(client.start(t, ep, scene.clock.now() + 1));
    expect(future).toBeInstanceOf(InvalidError);
    expect((future as Error).message).toBe('since: must be before now');
    expect(await caught(client.start(t, ep, 0))).toBeInstanceOf(InvalidError);
    expect(await caught(client.start(t, 'ep_01KAAAAAAAAAAAAAAAAAAAAAAA' as EndpointId, scene.clock.now() - 1))).toBeInstanceOf(NotFoundError);
    await client.start(t, ep, scene.clock.now() - 60_000);
    const conflict = await caught(client.start(t, ep, scene.clock.now() - 60_000));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as Error).message).toMatch(/already running/);
  });

  it('refuses a caller with another token (UNAUTHENTICATED) before the service starts anything', async () => {
    const { t, ep } = await endpoint(1);
    const intruder = new RecoveryGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: 'x'.repeat(32) });
    try {
      const caught = await intruder.start(t, ep, scene.clock.now() - 60_000).catch((err: unknown) => err);
      expect(caught).toBeInstanceOf(RpcError);
      expect(caught).toMatchObject({ code: 16 });
      expect(await scene.store.recoveries.latest(t, ep)).toBeNull();
    } finally {
      intruder.close();
    }
  });

  it('answers the standard health check for the server and RecoveryService', async () => {
    const address = `127.0.0.1:${server.port}`;
    await expect(checkHealth(address)).resolves.toBe('SERVING');
    await expect(checkHealth(address, { service: 'wirehook.recovery.v1.RecoveryService' })).resolves.toBe('SERVING');
  });
});

describe('a start read after its deadline (this process stalled: its caller has already answered 503)', () => {
  it('is not begun: unavailable, and no recovery started', async () => {
    const start = vi.fn();
    const handlers = recoveryHandlers({ start, get: vi.fn() } as never);
    const late = { getDeadline: () => Date.now() - 1 } as never;
    await expect(handlers.start({ tenant: { orgId: 'org_1', env: 'live' }, endpointId: 'ep_1', since: 0n } as never, late)).rejects.toMatchObject({
      code: 'unavailable',
      message: 'RecoveryService received this call after its deadline (the caller had given up); nothing was done: try again',
    });
    expect(start).not.toHaveBeenCalled();
  });
});
