// A call in flight when its server ends the connection (GOAWAY at its max age, grpc-server.ts)
// finishes on that connection. grpc-js 1.14.7's client sent its keepalive ping on the closing
// connection anyway, Node refused it, and the client failed every call still draining there
// with UNAVAILABLE "Connection dropped" (grpc/grpc-node#3068): in cluster mode a send racing
// message-intake's once-a-minute GOAWAY answered 503. patches/@grpc__grpc-js@1.14.7.patch
// keeps a closing connection from pinging. Here the ages and the pings are shortened so a
// run sees many GOAWAYs with calls draining through each.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EndpointId, OrgId } from '@wirehook/core';
import { MessageIntake } from './gen/wirehook/intake/v1/intake_pb.ts';
import { bindService, startGrpcServer, type GrpcServerHandle } from './grpc-server.ts';
import { createClient, type GrpcClient, type ServiceImpl } from './grpc-service.ts';
import { tenantToProto } from './intake-codec.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const tenant = tenantToProto({ orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' });
const endpointId = 'ep_01KCCCCCCCCCCCCCCCCCCCCCCC' as EndpointId;

/**
 * Calls take up to half a connection's life to answer (a quarter, a half, three quarters or all
 * of this, in turn: calls of one length would go in lockstep, every caller's next call waiting
 * for the others' to end, and none would see the next connection open while it is still in
 * flight), so many outlive their connection's GOAWAY. (A connection's life is well above a busy
 * machine's stalls: a call that reached a connection after its GOAWAY is refused and retried on
 * the next, once — not what this test is about.)
 */
const CALL_MS = 500;
const MAX_AGE_MS = 1_000;
/** The client's keepalive ping interval: several come due while a connection drains. */
const KEEPALIVE_MS = 100;
/** Calls that began on a connection and ended after the client had opened the next one. */
const DRAINED_CALLS_WANTED = 20;
/** Calls made at most (connections that never ended would drain none): ≈ 25 s of calls, where a few seconds drain 20. */
const MAX_CALLS = 640;

/** Client addresses (one per connection) in the order the server first saw them. */
const connections: string[] = [];
let drained = 0;
let answered = 0;
let server: GrpcServerHandle;
let client: GrpcClient<typeof MessageIntake>;

beforeAll(async () => {
  const impl = {
    releaseHeld: async (_request: unknown, call: { getPeer(): string }) => {
      const peer = call.getPeer();
      if (!connections.includes(peer)) connections.push(peer);
      await new Promise((resolve) => setTimeout(resolve, (CALL_MS * (1 + (answered++ % 4))) / 4));
      if (connections.at(-1) !== peer) drained++;
      return { released: 1 };
    },
  } as unknown as ServiceImpl<typeof MessageIntake>;
  server = await startGrpcServer({ address: '127.0.0.1:0', services: [bindService(MessageIntake, impl)], authToken: TOKEN, maxConnectionAgeMs: MAX_AGE_MS });
  client = createClient(MessageIntake, {
    address: `127.0.0.1:${server.port}`,
    authToken: TOKEN,
    channelOptions: { 'grpc.keepalive_time_ms': KEEPALIVE_MS },
  });
});
afterAll(async () => {
  client?.close();
  await server?.stop();
});

it(`calls in flight when the server ends their connection finish there: none of ${DRAINED_CALLS_WANTED} and more fails`, async () => {
  const failures: string[] = [];
  let calls = 0;
  const caller = async () => {
    while (drained < DRAINED_CALLS_WANTED && calls++ < MAX_CALLS) {
      // grpc-js' own words (the cause): "Connection dropped" is this bug's.
      const failed = (err: Error) => failures.push(`${err.message} (${(err.cause as Error | undefined)?.message})`);
      await client.rpc.releaseHeld({ tenant, endpointId }).catch(failed);
    }
  };
  await Promise.all(Array.from({ length: 8 }, caller));
  expect(connections.length).toBeGreaterThan(1);
  expect(drained).toBeGreaterThanOrEqual(DRAINED_CALLS_WANTED);
  expect(failures).toEqual([]);
}, 60_000);
