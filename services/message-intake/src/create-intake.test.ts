// The factory message-intake's process calls, in the test process: its gRPC component bound
// on loopback (GRPC_PORT 0), MessageIntake behind it on a SQLite store and the in-process
// bus. A gateway's call is written to the store and woken on the bus; INTERNAL_AUTH_TOKEN is
// the one the server checks; once stopped, the port is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeDispatchJob, DISPATCH_SUBJECT, dispatchJobTenant, MemoryBus } from '@wirehook/bus';
import { ManualClock, newId, type Org, type SendMessageInput, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { IntakeGrpcClient, RpcError } from '@wirehook/rpc';
import { openSqliteStore, type SqliteStore } from '@wirehook/store';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { plainEndpoint } from '../../../packages/store/test/contract/fixtures.ts';
import { createIntake } from './create-intake.ts';

const TOKEN = 'create-intake-test-token-of-32-chars-or-more';
let dir: string;
let store: SqliteStore;
let bus: MemoryBus;
const jobs: string[] = [];
/** The tenant each job's header names (so a dispatcher can leave a tenant's job over its share unclaimed). */
const jobTenants: (Tenant | undefined)[] = [];
const clock = new ManualClock(Date.UTC(2026, 4, 12, 9, 0, 0));
let built: ReturnType<typeof createIntake>;
const clients: IntakeGrpcClient[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wirehook-intake-'));
  store = openSqliteStore({ path: join(dir, 'store.sqlite') });
  bus = new MemoryBus();
  jobs.length = 0;
  jobTenants.length = 0;
  bus.consume(
    DISPATCH_SUBJECT,
    async (message) => {
      jobs.push(decodeDispatchJob(message.data));
      jobTenants.push(dispatchJobTenant(message.headers));
      return 'ack';
    },
    { concurrency: 1 },
  );
  built = createIntake({ GRPC_HOST: '127.0.0.1', GRPC_PORT: 0, INTERNAL_AUTH_TOKEN: TOKEN }, { store, bus, clock, logger: silentLogger() });
  await built.grpc.start();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await built.grpc.stop();
  await bus.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = (token = TOKEN) => {
  const c = new IntakeGrpcClient({ address: `127.0.0.1:${built.grpc.port()}`, authToken: token, deadlineMs: 2_000 });
  clients.push(c);
  return c;
};
/** An organization with one endpoint on consumer `customer-1`; the send a gateway would make for it. */
async function sendInput(): Promise<SendMessageInput> {
  const org: Org = await store.orgs.create({ id: newId('org', clock), name: 'Acme', plan: 'starter', ownerEmail: null, createdAt: clock.now() });
  const tenant: Tenant = { orgId: org.id, env: 'live' };
  const consumer = await store.consumers.create(tenant, { id: newId('consumer', clock), externalId: 'customer-1', name: null, createdAt: clock.now() });
  await store.endpoints.create(
    tenant,
    plainEndpoint(newId('endpoint', clock), consumer.id, clock.now(), { url: 'https://hooks.customer-1.test/in', retry: { count: 3, interval: '1m' } }),
    { sealed: 'v1.x', createdAt: clock.now(), expiresAt: null },
    1_000,
  );
  return { tenant, org, body: { consumer: 'customer-1', event_type: 'order.created', payload: { n: 1 } }, idempotencyKey: null };
}

it('binds GRPC_HOST:GRPC_PORT at start: a gateway’s send is written to the store and its delivery woken on the bus', async () => {
  expect(built.grpc.port()).toBeGreaterThan(0);
  const input = await sendInput();
  const result = await client().send(input);
  expect(result).toMatchObject({ id: expect.stringMatching(/^msg_/), deliveries: 1, replayed: false });
  const stored = await store.messages.get(input.tenant, result.id as never);
  expect(stored?.message).toMatchObject({ id: result.id, eventType: 'order.created', status: 'pending' });
  await expect.poll(() => jobs).toEqual([stored!.deliveries[0]!.delivery.id]);
  expect(jobTenants).toEqual([input.tenant]);
});

it('INTERNAL_AUTH_TOKEN reaches the server: a caller with another token is refused, and nothing is written', async () => {
  const input = await sendInput();
  const caught = await client('y'.repeat(32))
    .send(input)
    .catch((err: unknown) => err);
  expect(caught).toBeInstanceOf(RpcError);
  expect(caught).toMatchObject({ code: 16 }); // UNAUTHENTICATED
  expect((await store.messages.list(input.tenant, { limit: 10 })).rows).toEqual([]);
});

it('stop drains and unbinds: a call after it finds nothing listening', async () => {
  const port = built.grpc.port();
  await built.grpc.stop();
  const late = new IntakeGrpcClient({ address: `127.0.0.1:${port}`, authToken: TOKEN, deadlineMs: 2_000 });
  clients.push(late);
  await expect(late.send(await sendInput())).rejects.toMatchObject({ code: 'unavailable' });
});
