// The OpenAPI document: generated from the routes' zod schemas, committed, linted, served, and
// covering every route. (That every response the e2e suites receive matches it is checked by
// ApiClient itself, on each response.)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypesText, GENERATED, openApiDocumentText } from '../../scripts/openapi-files.ts';
import { startWirehook, type Harness } from '../support/harness.ts';

const committed = (url: URL) => readFileSync(url, 'utf8');

describe('the OpenAPI document', () => {
  let wh: Harness;
  beforeAll(async () => {
    wh = await startWirehook();
  });
  afterAll(async () => {
    await wh?.close();
  });

  it('docs/openapi.json is what the code generates (run `pnpm openapi` after changing a route or schema)', () => {
    expect(committed(GENERATED.document)).toBe(openApiDocumentText());
  });

  it("the client's types are generated from it (run `pnpm openapi`)", async () => {
    expect(committed(GENERATED.clientTypes)).toBe(await clientTypesText());
  });

  it('lints clean with Redocly CLI (recommended-strict: every warning fails)', () => {
    const lint = spawnSync('pnpm', ['exec', 'redocly', 'lint', 'docs/openapi.json', '--config', 'redocly.yaml', '--format', 'stylish'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(lint.status, `${lint.stdout}\n${lint.stderr}`).toBe(0);
    expect(lint.stdout + lint.stderr).toMatch(/valid/i);
  });

  it('is served at GET /v1/openapi.json without a key: the committed document, its servers naming this Wirehook', async () => {
    const res = await fetch(`${wh.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = JSON.parse(committed(GENERATED.document)) as Record<string, unknown>;
    const served = `${JSON.stringify({ ...doc, servers: [{ url: wh.url.replace(/\/$/, ''), description: 'This Wirehook' }] }, null, 2)}\n`;
    expect(await res.text()).toBe(served);
  });

  it('covers every route of the spec and the alerting routes, with the scope each needs', () => {
    const doc = JSON.parse(committed(GENERATED.document)) as { paths: Record<string, Record<string, { 'x-scope': string | null }>> };
    const listed = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([m, op]) => `${m.toUpperCase()} ${path} ${op['x-scope']}`),
    );
    // The spec's table (Endpoints section), written out here rather than read from the code under test.
    const spec = [
      'POST /v1/messages messages:send',
      'GET /v1/messages logs:read',
      'GET /v1/messages/{id} logs:read',
      'GET /v1/deliveries/{id} logs:read', // retry takes a delivery id, so it can be read
      'GET /v1/deliveries/{id}/attempts logs:read', // a delivery shows its newest 20 attempts; the rest paged
      'POST /v1/deliveries/{id}/retry messages:retry',
      'GET /v1/consumers logs:read',
      'POST /v1/consumers consumers:write',
      'GET /v1/consumers/{id} logs:read', // added: a tool holding a con_ id reads the external_id a message names
      'POST /v1/consumers/{id}/portal endpoints:write',
      'GET /v1/endpoints logs:read',
      'POST /v1/endpoints endpoints:write',
      'GET /v1/endpoints/{id} logs:read',
      'PATCH /v1/endpoints/{id} endpoints:write',
      'DELETE /v1/endpoints/{id} endpoints:write',
      'POST /v1/endpoints/{id}/rotate-secret endpoints:write',
      'POST /v1/endpoints/{id}/recover messages:retry',
      'GET /v1/endpoints/{id}/recoveries/{recovery_id} logs:read',
      'GET /v1/endpoints/{id}/stats logs:read', // an endpoint's health
      'POST /v1/endpoints/{id}/transformation/simulate endpoints:write', // runs code as a send would, sends nothing
      'GET /v1/event-types null',
      'GET /v1/egress-ips null', // the fixed source addresses, any key
      'POST /v1/event-types endpoints:write',
      // The event catalog (issue 45): reads for any key, changes with endpoints:write.
      'GET /v1/event-types/openapi.json null',
      'GET /v1/event-types/{name} null',
      'PATCH /v1/event-types/{name} endpoints:write',
      'GET /v1/event-types/{name}/versions null',
      'GET /v1/alert-conditions logs:read',
      'PUT /v1/alert-conditions endpoints:write',
      'GET /v1/alert-targets logs:read',
      'POST /v1/alert-targets endpoints:write',
      'GET /v1/alert-targets/{id} logs:read',
      'DELETE /v1/alert-targets/{id} endpoints:write',
      'POST /v1/alert-targets/{id}/test endpoints:write',
    ];
    expect(listed.sort()).toEqual(spec.sort());
  });

  it('every documented operation is a route of the running API (with a key: never "no route")', async () => {
    const t = await wh.tenant({ plan: 'starter' });
    const doc = JSON.parse(committed(GENERATED.document)) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        // Ids no record has: a route answers 404 naming the record, 422 or 202; only an unknown path says "no route".
        const concrete = path.replace(/\{[^}]+\}/g, 'x_1');
        const res = await t.api.request(method.toUpperCase(), concrete);
        expect(`${res.status} ${res.body?.message ?? ''}`, `${method.toUpperCase()} ${concrete}`).not.toMatch(/^404 no route/);
      }
    }
    // The check above can fail: a path the API does not have says so.
    expect((await t.api.get('/v1/no-such-things')).body.message).toMatch(/^no route/);
  });

  it('a malformed body on a scoped route that takes none is a documented 422 (every scoped route reads its body)', async () => {
    const t = await wh.tenant({ plan: 'starter' });
    const res = await t.api.request('POST', '/v1/endpoints/ep_x/rotate-secret', '{');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('request body is not valid JSON');
  });

  it('a scoped key without the scope gets the documented 403, checked against the document', async () => {
    const reader = await wh.tenant({ scopes: ['logs:read'] });
    const res = await reader.api.post('/v1/consumers', { external_id: 'c-1' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it('the reference page at /docs is served from our own origin with its script (no CDN)', async () => {
    const page = await fetch(`${wh.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('spec-url="/v1/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = await fetch(`${wh.url}/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
