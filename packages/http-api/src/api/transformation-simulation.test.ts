import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, UnavailableError, type ConsumerId, type Endpoint, type EndpointId, type OrgId, type Tenant } from '@wirehook/core';
import { TransformRunner } from '@wirehook/transform';
import { simulateTransformation } from './transformation-simulation.ts';

const NOW = Date.UTC(2026, 10, 30, 12);
const tenantA: Tenant = { orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' };
const tenantB: Tenant = { orgId: 'org_01KBBBBBBBBBBBBBBBBBBBBBBB' as OrgId, env: 'live' };

function endpoint(id: string): Endpoint {
  return {
    id: id as EndpointId,
    consumerId: 'con_01KAAAAAAAAAAAAAAAAAAAAAAA' as ConsumerId,
    url: 'https://hooks.example.com/in',
    description: null,
    eventTypes: null,
    fixedIp: false,
    status: 'active',
    disabledReason: null,
    failingSince: null,
    createdAt: NOW,
    retry: DEFAULT_RETRY_POLICY,
    compatSignature: null,
  };
}

const body = { event_type: 'invoice.paid', payload: { id: 1 }, code: 'function handler(w) { return w }' };
const elapsed = () => 1;

let runner: TransformRunner;
beforeAll(() => {
  runner = new TransformRunner();
});
afterAll(() => runner.close());

describe('simulateTransformation: one simulation at a time per tenant (the route shares the sandbox with sends)', () => {
  it("a tenant's second simulation while its first runs is 503, whichever endpoint; another tenant's runs; once done, the next runs", async () => {
    const first = simulateTransformation(runner, tenantA, endpoint('ep_a1'), body, NOW, elapsed);
    const second = simulateTransformation(runner, tenantA, endpoint('ep_a2'), body, NOW, elapsed);
    const otherTenant = simulateTransformation(runner, tenantB, endpoint('ep_b'), body, NOW, elapsed);
    await expect(second).rejects.toBeInstanceOf(UnavailableError);
    await expect(second).rejects.toThrow("transformation: this tenant's previous simulation is still running (one at a time); try again shortly");
    expect(await first).toMatchObject({ cancel: false, error: null });
    expect(await otherTenant).toMatchObject({ cancel: false, error: null });
    expect(await simulateTransformation(runner, tenantA, endpoint('ep_a2'), body, NOW, elapsed)).toMatchObject({ cancel: false, error: null });
  });
});
