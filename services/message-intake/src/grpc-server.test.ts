import {
  ConflictError,
  InvalidError,
  NotFoundError,
  PlanLimitError,
  RateLimitedError,
  toErrorResponse,
  UnavailableError,
  WirehookError,
  type Delivery,
  type DeliveryId,
  type EndpointId,
  type IntakePort,
  type MessageId,
  type Org,
  type OrgId,
  type SendMessageInput,
  type Tenant,
} from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import { checkHealth, IntakeGrpcClient, RpcError, type GrpcServerHandle } from '@wirehook/rpc';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startIntakeGrpcServer } from './grpc-server.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const orgId = 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId;
const tenant: Tenant = { orgId, env: 'live' };
const org: Org = { id: orgId, name: 'Acme', plan: 'starter', ownerEmail: null, createdAt: Date.UTC(2026, 0, 5) };
const deliveryId = 'dlv_01KBBBBBBBBBBBBBBBBBBBBBBB' as DeliveryId;
const endpointId = 'ep_01KCCCCCCCCCCCCCCCCCCCCCCC' as EndpointId;
const delivery: Delivery = {
  id: deliveryId,
  messageId: 'msg_01KDDDDDDDDDDDDDDDDDDDDDDD' as MessageId,
  endpointId,
  url: 'https://hooks.example.com/in',
  status: 'pending',
  attemptCount: 3,
  policyAttempts: 2,
  nextAttemptAt: Date.UTC(2026, 10, 22, 13, 0, 1),
  manual: true,
  createdAt: Date.UTC(2026, 10, 22, 12, 0, 0),
};

/** An IntakePort whose every method is a mock the test tells what to do. */
function fakeIntake() {
  return {
    send: vi.fn<IntakePort['send']>(),
    retryDelivery: vi.fn<IntakePort['retryDelivery']>(),
    releaseHeld: vi.fn<IntakePort['releaseHeld']>(),
  } satisfies IntakePort;
}

describe('MessageIntake over gRPC (IntakeGrpcClient → startIntakeGrpcServer → IntakePort)', () => {
  const intake = fakeIntake();
  const logger = { error: vi.fn(), warn: vi.fn() };
  let server: GrpcServerHandle;
  let client: IntakeGrpcClient;

  beforeAll(async () => {
    server = await startIntakeGrpcServer({ intake, address: '127.0.0.1:0', logger: logger as unknown as Logger, authToken: TOKEN });
    client = new IntakeGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });
  beforeEach(() => vi.resetAllMocks());

  it('send: the intake gets the same input, the gateway the same result', async () => {
    // A replay the store decided: `replayed` crosses the wire too (idempotent-replayed in cluster mode).
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE', deliveries: 2, usageMonth: 1_234, replayed: true });
    const input: SendMessageInput = {
      tenant,
      org: { ...org, ownerEmail: 'ops@acme.example' },
      body: { consumer: 'cus_42', event_type: 'invoice.paid', payload: { id: 7, tags: ['a', 'ü'], nested: { ok: true, none: null } } },
      idempotencyKey: 'key-1',
    };
    await expect(client.send(input)).resolves.toEqual({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE', deliveries: 2, usageMonth: 1_234, replayed: true });
    expect(intake.send).toHaveBeenCalledExactlyOnceWith(input);
  });

  it('send: a test-environment send without an idempotency key and a scalar payload', async () => {
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE', deliveries: 0, usageMonth: 0 });
    const input: SendMessageInput = {
      tenant: { orgId, env: 'test' },
      org,
      body: { consumer: 'cus_42', event_type: 'ping', payload: 'just text' },
      idempotencyKey: null,
    };
    await client.send(input);
    expect(intake.send).toHaveBeenCalledExactlyOnceWith(input);
  });

  it('retryDelivery: same tenant and id in, same delivery out (with and without a next attempt)', async () => {
    intake.retryDelivery.mockResolvedValueOnce(delivery);
    await expect(client.retryDelivery(tenant, deliveryId)).resolves.toEqual(delivery);
    expect(intake.retryDelivery).toHaveBeenCalledExactlyOnceWith(tenant, deliveryId);

    const done: Delivery = { ...delivery, status: 'success', nextAttemptAt: null, manual: false };
    intake.retryDelivery.mockResolvedValueOnce(done);
    await expect(client.retryDelivery(tenant, deliveryId)).resolves.toEqual(done);
  });

  it('releaseHeld: same arguments in, same count out', async () => {
    intake.releaseHeld.mockResolvedValue(12);
    await expect(client.releaseHeld(tenant, endpointId)).resolves.toBe(12);
    expect(intake.releaseHeld).toHaveBeenCalledExactlyOnceWith(tenant, endpointId);
  });

  it.each([
    new PlanLimitError("the starter plan's 250,000 live messages this month are used up"),
    new InvalidError('payload: is 1,000,001 bytes of JSON; at most 1,000,000 (1 MB)'),
    new NotFoundError(`delivery ${deliveryId} not found`),
    new ConflictError(`the endpoint of delivery ${deliveryId} is paused; resume it first`),
    new RateLimitedError('test-environment sends are limited to 1,000 per UTC day', 30),
    new UnavailableError('the store is unavailable'),
  ])('a thrown %s reaches the gateway as the same error and HTTP body', async (thrown) => {
    intake.retryDelivery.mockRejectedValue(thrown);
    const caught = await client.retryDelivery(tenant, deliveryId).catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(thrown.constructor);
    expect(caught).toMatchObject({ code: thrown.code, message: thrown.message });
    expect(toErrorResponse(caught)).toEqual(toErrorResponse(thrown));
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('an unexpected failure is logged by the server and reaches the gateway as an opaque 500', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    intake.releaseHeld.mockRejectedValue(bug);
    const caught = await client.releaseHeld(tenant, endpointId).catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(RpcError);
    expect(caught).not.toBeInstanceOf(WirehookError);
    expect(toErrorResponse(caught).status).toBe(500);
    expect((caught as Error).message).not.toContain('reading');
    expect(logger.error).toHaveBeenCalledExactlyOnceWith({ err: bug, path: '/wirehook.intake.v1.MessageIntake/ReleaseHeld' }, 'gRPC call failed');
  });

  it('honours the deadline: a call the intake does not answer in time fails as unavailable', async () => {
    let answer!: (n: number) => void;
    intake.releaseHeld.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const hasty = new IntakeGrpcClient({ address: `127.0.0.1:${server.port}`, deadlineMs: 200, authToken: TOKEN });
    try {
      const started = performance.now();
      const caught = await hasty.releaseHeld(tenant, endpointId).catch((err: unknown) => err);
      const elapsed = performance.now() - started;
      expect(caught).toBeInstanceOf(UnavailableError);
      expect(caught).toMatchObject({ message: 'MessageIntake did not answer within 200 ms; try again' });
      expect(elapsed).toBeGreaterThanOrEqual(150);
      expect(elapsed).toBeLessThan(2_000);
    } finally {
      answer(0);
      hasty.close();
    }
  });

  it.each([
    ['an empty token', ''],
    ['a wrong token', 'x'.repeat(32)],
    ['the token with its last character changed', `${TOKEN.slice(0, -1)}?`],
  ])('refuses a caller with %s: UNAUTHENTICATED, and the intake is not called', async (_label, token) => {
    intake.releaseHeld.mockClear();
    const intruder = new IntakeGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: token });
    try {
      const caught = await intruder.releaseHeld(tenant, endpointId).catch((err: unknown) => err);
      expect(caught).toBeInstanceOf(RpcError);
      expect(caught).toMatchObject({ code: 16, message: expect.stringContaining('INTERNAL_AUTH_TOKEN') }); // UNAUTHENTICATED
      expect(intake.releaseHeld).not.toHaveBeenCalled();
      expect(logger.warn).toHaveBeenLastCalledWith(
        expect.objectContaining({ path: '/wirehook.intake.v1.MessageIntake/ReleaseHeld' }),
        'refused a gRPC call without the INTERNAL_AUTH_TOKEN',
      );
    } finally {
      intruder.close();
    }
  });

  it('answers the standard health check: SERVING for the server and MessageIntake', async () => {
    const address = `127.0.0.1:${server.port}`;
    await expect(checkHealth(address)).resolves.toBe('SERVING');
    await expect(checkHealth(address, { service: 'wirehook.intake.v1.MessageIntake' })).resolves.toBe('SERVING');
    await expect(checkHealth(address, { service: 'wirehook.nope.v1.Nope' })).resolves.toBe('SERVICE_UNKNOWN');
  });
});

describe('IntakeGrpcClient without a server', () => {
  it('fails as unavailable when nothing listens', async () => {
    const gone = await startIntakeGrpcServer({ intake: fakeIntake(), address: '127.0.0.1:0', authToken: TOKEN });
    await gone.stop();
    const client = new IntakeGrpcClient({ address: `127.0.0.1:${gone.port}`, deadlineMs: 2_000, authToken: TOKEN });
    try {
      await expect(client.releaseHeld(tenant, endpointId)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'MessageIntake is unavailable; try again',
      });
    } finally {
      client.close();
    }
  });
});
