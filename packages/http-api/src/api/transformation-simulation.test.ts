import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, UnavailableError, type ConsumerId, type Endpoint, type EndpointId, type OrgId, type Tenant } from '@wirehook/core';
import { TransformRunner } from '@wirehook/transform';
import { plainEndpoint } from '../../../store/test/contract/fixtures.ts';
import { simulateTransformation } from './transformation-simulation.ts';

const NOW = Date.UTC(2026, 10, 30, 12);
const tenantA: Tenant = { orgId: 'org_01KAAAAAAAAAAAAAAAAAAAAAAA' as OrgId, env: 'live' };
const tenantB: Tenant = { orgId: 'org_01KBBBBBBBBBBBBBBBBBBBBBBB' as OrgId, env: 'live' };

/** An endpoint of `tenantA`'s or `tenantB`'s: which does not matter to the sandbox, its id does (a turn's key). */
const endpoint = (id: string): Endpoint =>
  plainEndpoint(id as EndpointId, 'con_01KAAAAAAAAAAAAAAAAAAAAAAA' as ConsumerId, NOW, { url: 'https://hooks.example.com/in', retry: DEFAULT_RETRY_POLICY });

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

describe('simulateTransformation: says what a send would do', () => {
  it('on an endpoint with auth, code moving the URL to another origin is the send’s transformation error; another path is taken', async () => {
    const withAuth = { ...endpoint('ep_auth'), auth: { type: 'oauth2_client_credentials' } } as unknown as Endpoint;
    const moving = (url: string) => ({ ...body, code: `function handler(w) { w.url = ${JSON.stringify(url)}; return w }` });
    expect(await simulateTransformation(runner, tenantA, withAuth, moving('https://collector.evil.example/in'), NOW, elapsed)).toMatchObject({
      request: null,
      error:
        "transformation: the returned url https://collector.evil.example/in is at another origin than the endpoint's (https://hooks.example.com): " +
        'an endpoint with auth sends its OAuth token only there',
    });
    expect(await simulateTransformation(runner, tenantA, withAuth, moving('https://hooks.example.com/v2'), NOW, elapsed)).toMatchObject({
      error: null,
      request: { url: 'https://hooks.example.com/v2' },
    });
    // Without auth, the same code moves it.
    expect(await simulateTransformation(runner, tenantA, endpoint('ep_plain'), moving('https://collector.evil.example/in'), NOW, elapsed)).toMatchObject({
      error: null,
    });
  });
});
