// A gRPC server's stop: calls its grace left are cancelled, and the stop ends only once their
// handlers have (a service closes its store after its server: not under a handler at work).
import { expect, it } from 'vitest';
import type { EndpointId, OrgId } from '@wirehook/core';
import { MessageIntake } from './gen/wirehook/intake/v1/intake_pb.ts';
import { bindService, startGrpcServer } from './grpc-server.ts';
import { createClient, type ServiceImpl } from './grpc-service.ts';
import { tenantToProto } from './intake-codec.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const tenant = tenantToProto({ orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' });
const endpointId = 'ep_01KCCCCCCCCCCCCCCCCCCCCCCC' as EndpointId;

it('a call still running at the end of the grace is cancelled, and the stop waits for its handler to end', async () => {
  let started!: () => void;
  const handlerStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let handlerEnded = false;
  const impl = {
    releaseHeld: async () => {
      started();
      await gate; // a store write under way
      handlerEnded = true;
      return { released: 1 };
    },
  } as unknown as ServiceImpl<typeof MessageIntake>;
  const server = await startGrpcServer({ address: '127.0.0.1:0', services: [bindService(MessageIntake, impl)], authToken: TOKEN, shutdownGraceMs: 10 });
  const client = createClient(MessageIntake, { address: `127.0.0.1:${server.port}`, authToken: TOKEN });
  try {
    const call = client.rpc.releaseHeld({ tenant, endpointId }).then(
      () => 'answered',
      (err: { code?: number }) => err.code,
    );
    await handlerStarted;
    const stopped = server.stop().then(() => handlerEnded);
    expect(await call).toBe(1); // CANCELLED, at the end of the 10 ms grace
    release();
    // Had the stop ended at the cancel, the handler would not have ended by then.
    expect(await stopped).toBe(true);
  } finally {
    client.close();
    release();
    await server.stop();
  }
});
