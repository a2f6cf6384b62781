import {
  ConflictError,
  InvalidError,
  NotFoundError,
  PlanLimitError,
  RateLimitedError,
  toErrorResponse,
  TooLargeError,
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
import {
  checkHealth,
  createClient,
  grpcMetrics,
  IntakeGrpcClient,
  intakev1,
  RETRY_SAFELY,
  RpcError,
  sendInputToProto,
  tenantToProto,
  type GrpcServerHandle,
} from '@wirehook/rpc';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerWithinMs } from '@wirehook/rpc';
import { intakeHandlers, startIntakeGrpcServer } from './grpc-server.ts';

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
    new UnavailableError('the store is unavailable', { cause: new Error('connection 4 to db-0:27017 closed') }),
  ])('a thrown %s reaches the gateway as the same error and HTTP body; logged here only when a dependency is down', async (thrown) => {
    intake.retryDelivery.mockRejectedValue(thrown);
    const caught = await client.retryDelivery(tenant, deliveryId).catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(thrown.constructor);
    expect(caught).toMatchObject({ code: thrown.code, message: thrown.message });
    expect(toErrorResponse(caught)).toEqual(toErrorResponse(thrown));
    // A 503's cause (a store failing over) is whole only here: the gateway gets its code and message.
    expect(logger.error).toHaveBeenCalledTimes(thrown.cause === undefined ? 0 : 1);
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
      expect(caught).toMatchObject({
        message: `MessageIntake did not answer within 200 ms; it may still have done it: ${RETRY_SAFELY}`,
      });
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
  it('fails each send of a batch as unavailable when nothing listens', async () => {
    const gone = await startIntakeGrpcServer({ intake: fakeIntake(), address: '127.0.0.1:0', authToken: TOKEN });
    await gone.stop();
    const client = new IntakeGrpcClient({ address: `127.0.0.1:${gone.port}`, deadlineMs: 2_000, authToken: TOKEN });
    const send = (payload: number) => client.send({ tenant, org, body: { consumer: 'c', event_type: 'a.b', payload }, idempotencyKey: null });
    try {
      const caught = await Promise.all([send(1), send(2)].map((p) => p.catch((err: unknown) => err)));
      for (const err of caught) expect(err).toMatchObject({ code: 'unavailable', message: 'MessageIntake is unavailable; try again' });
    } finally {
      client.close();
    }
  });

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

describe('SendBatch: the sends of one turn of the event loop in one call', () => {
  const intake = fakeIntake();
  const logger = { error: vi.fn(), warn: vi.fn() };
  let registry: Registry;
  let server: GrpcServerHandle;
  let client: IntakeGrpcClient;
  const input = (payload: SendMessageInput['body']['payload']): SendMessageInput => ({
    tenant,
    org,
    body: { consumer: 'cus_42', event_type: 'invoice.paid', payload },
    idempotencyKey: null,
  });
  const calls = async (side: 'server' | 'client', method: string, code = 'OK') => {
    const metric = await registry.getSingleMetric(`grpc_${side}_handled_total`)!.get();
    return metric.values.find((v) => v.labels['grpc_method'] === method && v.labels['grpc_code'] === code)?.value ?? 0;
  };

  beforeEach(async () => {
    vi.resetAllMocks();
    registry = new Registry();
    server = await startIntakeGrpcServer({ intake, address: '127.0.0.1:0', logger: logger as unknown as Logger, authToken: TOKEN, registry });
    client = new IntakeGrpcClient({ address: `127.0.0.1:${server.port}`, authToken: TOKEN, metrics: grpcMetrics(registry) });
  });
  afterEach(async () => {
    client.close();
    await server.stop();
  });

  it('one call for five sends; each gets its own answer, and a bug in one is logged and opaque to that one only', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const limit = new PlanLimitError("the starter plan's 250,000 live messages this month are used up");
    intake.send.mockImplementation(async ({ body }) => {
      if (body.payload === 'over') throw limit;
      if (body.payload === 'bug') throw bug;
      return { id: `msg_01KEEEEEEEEEEEEEEEEEEEEE0${body.payload}` as MessageId, deliveries: Number(body.payload), usageMonth: 7 };
    });
    const settled = await Promise.allSettled(['1', 'over', '2', 'bug', '3'].map((p) => client.send(input(p))));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.deliveries : (s.reason as Error).constructor.name))).toEqual([
      1,
      'PlanLimitError',
      2,
      'RpcError',
      3,
    ]);
    expect(settled[1]).toMatchObject({ reason: { code: 'plan_limit', message: limit.message } });
    expect(toErrorResponse((settled[3] as PromiseRejectedResult).reason).status).toBe(500);
    expect(((settled[3] as PromiseRejectedResult).reason as Error).message).not.toContain('reading');
    expect(intake.send).toHaveBeenCalledTimes(5);
    expect(await calls('server', 'SendBatch')).toBe(1);
    expect(await calls('server', 'Send')).toBe(0);
    expect(logger.error).toHaveBeenCalledExactlyOnceWith({ err: bug, path: '/wirehook.intake.v1.MessageIntake/SendBatch' }, 'gRPC call failed');
  });

  it("a send whose store is failing over is answered 503 and logged with its cause; one refused for the caller's fault is not logged", async () => {
    const down = new UnavailableError('the database is failing over', { cause: new Error('connection 4 to db-0:27017 closed') });
    const limit = new PlanLimitError("the starter plan's 250,000 live messages this month are used up");
    intake.send.mockImplementation(async ({ body }) => {
      throw body.payload === 'down' ? down : limit;
    });
    const settled = await Promise.allSettled(['down', 'over'].map((p) => client.send(input(p))));
    expect(settled.map((s) => (s.status === 'rejected' ? toErrorResponse(s.reason).status : 200))).toEqual([503, 402]);
    expect(logger.error).toHaveBeenCalledExactlyOnceWith({ err: down, path: '/wirehook.intake.v1.MessageIntake/SendBatch' }, 'gRPC call failed');
  });

  it.each([
    [64, 1],
    [65, 2],
    [129, 3],
  ])('%i sends at once go in %i calls (64 at most a call)', async (sends, expected) => {
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE' as MessageId, deliveries: 1, usageMonth: 1 });
    const results = await Promise.all(Array.from({ length: sends }, (_, i) => client.send(input(i))));
    expect(results).toHaveLength(sends);
    expect(intake.send).toHaveBeenCalledTimes(sends);
    expect(await calls('client', 'SendBatch')).toBe(expected);
  });

  it.each([
    // A string payload's JSON text is its length + 2 (the quotes): 2 × 524,288 = 1,048,576 (1 MiB) fit one call.
    [524_286, 1],
    [524_287, 2],
  ])('two payloads of %i characters go in %i call(s) (1 MiB of payload text at most a call)', async (length, expected) => {
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE' as MessageId, deliveries: 1, usageMonth: 1 });
    await Promise.all([client.send(input('a'.repeat(length))), client.send(input('b'.repeat(length)))]);
    expect(intake.send.mock.calls.map(([i]) => (i.body.payload as string).length)).toEqual([length, length]);
    expect(await calls('client', 'SendBatch')).toBe(expected);
  });

  it('a send that outlasts the call is answered unavailable shortly before its deadline; the others in the call get their own answers', async () => {
    intake.send.mockImplementation(async ({ body }) => {
      if (body.payload === 'slow') return new Promise<never>(() => {}); // never answers
      return { id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE' as MessageId, deliveries: 1, usageMonth: 1 };
    });
    const hasty = new IntakeGrpcClient({ address: `127.0.0.1:${server.port}`, deadlineMs: 1_000, authToken: TOKEN });
    try {
      const [fast, slow] = await Promise.allSettled([hasty.send(input('fast')), hasty.send(input('slow'))]);
      expect(fast).toMatchObject({ status: 'fulfilled', value: { deliveries: 1 } });
      expect(slow.status === 'rejected' && slow.reason).toBeInstanceOf(UnavailableError);
      expect(slow).toMatchObject({ reason: { message: 'MessageIntake did not finish this send before the call’s deadline; try again' } });
      expect(await calls('server', 'SendBatch')).toBe(1); // the call itself answered
    } finally {
      hasty.close();
    }
  });

  it.each([
    // deadline − now (ms), then how long its sends may run: the answer leaves a quarter of the time left, or 250 ms, before it
    [5_000, 4_750],
    [1_000, 750],
    [600, 450],
    [100, 75],
    [0, 0],
    [-50, 0],
  ])('a call with %i ms left lets its sends run %i ms', (left, expected) => {
    expect(answerWithinMs(1_700_000_000_000 + left, 1_700_000_000_000)).toBe(expected);
    expect(answerWithinMs(new Date(1_700_000_000_000 + left), 1_700_000_000_000)).toBe(expected);
  });

  it('a call without a deadline lets its sends run as long as a timer can', () => {
    expect(answerWithinMs(Number.POSITIVE_INFINITY, Date.now())).toBe(2 ** 31 - 1);
  });

  it.each([
    new PlanLimitError("the starter plan's 250,000 live messages this month are used up"),
    new InvalidError('payload: is 1,000,001 bytes of JSON; at most 1,000,000 (1 MB)'),
    new TooLargeError('the body is 1,100,001 bytes; at most 1,100,000'),
    new NotFoundError('consumer cus_9 not found'),
    new ConflictError('the endpoint is paused; resume it first'),
    new RateLimitedError('test-environment sends are limited to 1,000 per UTC day', 30),
    new UnavailableError('the store is unavailable'),
    new WirehookError('internal', 'the store answered something it never writes'),
    new TypeError("Cannot read properties of undefined (reading 'id')"),
  ])('a send that throws %s fails the same way batched as in a Send call of its own', async (thrown) => {
    intake.send.mockRejectedValue(thrown);
    const unary = createClient(intakev1.MessageIntake, { address: `127.0.0.1:${server.port}`, authToken: TOKEN });
    try {
      const alone = await unary.rpc.send(sendInputToProto(input(1))).catch((err: unknown) => err);
      const batched = await client.send(input(1)).catch((err: unknown) => err);
      expect((batched as Error).constructor).toBe((alone as Error).constructor);
      expect(toErrorResponse(batched)).toEqual(toErrorResponse(alone));
      expect(batched instanceof RateLimitedError && batched.retryAfterSeconds).toBe(alone instanceof RateLimitedError && alone.retryAfterSeconds);
      expect(toErrorResponse(batched).status).toBe(thrown instanceof WirehookError ? thrown.status : 500);
    } finally {
      unary.close();
    }
  });

  it('a send gathered when the client is closed fails as a Send call made then would: unavailable (503), not a 500', async () => {
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE' as MessageId, deliveries: 1, usageMonth: 1 });
    await client.send(input(1));
    const sent = client.send(input(5)).catch((err: unknown) => err);
    client.close();
    expect(await sent).toBeInstanceOf(UnavailableError);
  });

  it('the unary Send is still served (a gateway of the previous version, mid-upgrade)', async () => {
    intake.send.mockResolvedValue({ id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE' as MessageId, deliveries: 4, usageMonth: 9 });
    const old = createClient(intakev1.MessageIntake, { address: `127.0.0.1:${server.port}`, authToken: TOKEN });
    try {
      await expect(old.rpc.send(sendInputToProto(input({ n: 1 })))).resolves.toMatchObject({ deliveries: 4, usageMonth: 9 });
      expect(await calls('server', 'Send')).toBe(1);
    } finally {
      old.close();
    }
  });
});

describe('a call read after its deadline (this process stalled: its caller has already answered 503)', () => {
  const late = { getDeadline: () => Date.now() - 1 } as never;
  const justInTime = { getDeadline: () => Date.now() + 5_000 } as never;
  const TOO_LATE = 'MessageIntake received this call after its deadline (the caller had given up); nothing was done: try again';

  it('is not begun: a send, a batch, a retry and a release answer unavailable and the intake is not called', async () => {
    const intake = fakeIntake();
    const handlers = intakeHandlers(intake, undefined);
    const request = sendInputToProto({ tenant, org, body: { consumer: 'acme', event_type: 'a.b', payload: {} }, idempotencyKey: null });
    await expect(handlers.send(request as never, late)).rejects.toMatchObject({ code: 'unavailable', message: TOO_LATE });
    const batch = await handlers.sendBatch({ sends: [{ send: request }, { send: request }] } as never, late);
    expect(batch).toMatchObject({
      outcomes: [{ outcome: { case: 'error', value: { code: 'unavailable', message: TOO_LATE } } }, { outcome: { case: 'error' } }],
    });
    await expect(handlers.retryDelivery({ tenant: { orgId, env: 'live' }, deliveryId } as never, late)).rejects.toMatchObject({ message: TOO_LATE });
    await expect(handlers.releaseHeld({ tenant: { orgId, env: 'live' }, endpointId } as never, late)).rejects.toMatchObject({ message: TOO_LATE });
    expect(intake.send).not.toHaveBeenCalled();
    expect(intake.retryDelivery).not.toHaveBeenCalled();
    expect(intake.releaseHeld).not.toHaveBeenCalled();
    // Read in time, it is done.
    intake.releaseHeld.mockResolvedValue(3);
    expect(await handlers.releaseHeld({ tenant: tenantToProto(tenant), endpointId } as never, justInTime)).toEqual({ released: 3 });
  });
});
