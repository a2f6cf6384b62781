// A client whose target names several servers spreads its calls over all of them
// (round_robin, grpc-service.ts), instead of sending every call to the first that answered.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EndpointId, OrgId } from '@wirehook/core';
import { MessageIntake } from './gen/wirehook/intake/v1/intake_pb.ts';
import { bindService, startGrpcServer, type GrpcServerHandle } from './grpc-server.ts';
import { createClient, type GrpcClient, type ServiceImpl } from './grpc-service.ts';
import { tenantToProto } from './intake-codec.ts';

const TOKEN = 'test-internal-auth-token-of-32-chars-or-more';
const tenant = tenantToProto({ orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' });
const endpointId = 'ep_01KCCCCCCCCCCCCCCCCCCCCCCC' as EndpointId;

/** Calls each server answered, by its index. */
const served = [0, 0];
const servers: GrpcServerHandle[] = [];
let client: GrpcClient<typeof MessageIntake>;

beforeAll(async () => {
  for (const i of [0, 1]) {
    const impl = {
      releaseHeld: async () => {
        served[i]!++;
        return { released: i };
      },
    } as unknown as ServiceImpl<typeof MessageIntake>;
    servers.push(await startGrpcServer({ address: '127.0.0.1:0', services: [bindService(MessageIntake, impl)], authToken: TOKEN }));
  }
  client = createClient(MessageIntake, { address: `ipv4:${servers.map((s) => `127.0.0.1:${s.port}`).join(',')}`, authToken: TOKEN });
});
afterAll(async () => {
  client?.close();
  await Promise.all(servers.map((s) => s.stop()));
});

it('spreads calls over every address of an ipv4: target', async () => {
  for (let i = 0; i < 40; i++) await client.rpc.releaseHeld({ tenant, endpointId });
  expect(served[0]! + served[1]!).toBe(40);
  expect(Math.min(...served)).toBeGreaterThanOrEqual(10);
});
