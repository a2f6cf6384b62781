// IntakeGrpcClient against a message-intake of the version before SendBatch (a rolling upgrade
// meets one): the batching client falls back to Send calls. The SendBatch path itself is
// tested against the real server in services/message-intake/src/grpc-server.test.ts.
import { create } from '@bufbuild/protobuf';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import type { OrgId, SendMessageInput } from '@wirehook/core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MessageIntake, SendResponseSchema, type SendRequest } from './gen/wirehook/intake/v1/intake_pb.ts';
import { grpcMetrics } from './grpc-metrics.ts';
import { methodDefinition } from './grpc-service.ts';
import { IntakeGrpcClient } from './intake-grpc-client.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const orgId = 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId;
const input = (n: number): SendMessageInput => ({
  tenant: { orgId, env: 'live' },
  org: { id: orgId, name: 'Acme', plan: 'starter', ownerEmail: null, createdAt: Date.UTC(2026, 0, 5) },
  body: { consumer: 'cus_42', event_type: 'invoice.paid', payload: n },
  idempotencyKey: null,
});

const registry = new Registry();
let legacy: Server;
let client: IntakeGrpcClient;

beforeAll(async () => {
  // Only Send is served, as by a message-intake of before SendBatch: SendBatch is UNIMPLEMENTED.
  legacy = new Server();
  legacy.addService({ send: methodDefinition(MessageIntake.method.send) } as ServiceDefinition, {
    send: (call: ServerUnaryCall<SendRequest, unknown>, callback: sendUnaryData<unknown>) =>
      callback(null, create(SendResponseSchema, { id: 'msg_01KEEEEEEEEEEEEEEEEEEEEEEE', deliveries: Number(call.request.body!.payloadJson) })),
  });
  const port = await new Promise<number>((resolve, reject) =>
    legacy.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  client = new IntakeGrpcClient({ address: `127.0.0.1:${port}`, authToken: TOKEN, metrics: grpcMetrics(registry) });
});
afterAll(() => {
  client?.close();
  legacy?.forceShutdown();
});

const calls = async (method: string, code: string) => {
  const metric = await registry.getSingleMetric('grpc_client_handled_total')!.get();
  return metric.values.find((v) => v.labels['grpc_method'] === method && v.labels['grpc_code'] === code)?.value ?? 0;
};

it('a message-intake without SendBatch: the sends go as Send calls, each answered, and later ones without asking again', async () => {
  const first = await Promise.all([1, 2, 3].map((n) => client.send(input(n))));
  expect(first.map((r) => r.deliveries)).toEqual([1, 2, 3]);
  await expect(client.send(input(4))).resolves.toMatchObject({ deliveries: 4 });
  expect(await calls('SendBatch', 'UNIMPLEMENTED')).toBe(1); // asked once, then not for 30 s
  expect(await calls('Send', 'OK')).toBe(4);
});
