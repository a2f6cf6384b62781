// The OpenAPI document: the ordered-delivery headers in `webhooks.message`, failure notices
// in `webhooks.failureNotice`, `servers` naming the Wirehook that serves it, and response
// samples built from real examples (ids with their prefixes), not "string".
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { ID_PREFIX } from '@wirehook/core';
import { openApiDocument } from './document.ts';
import { apiDocsRouter } from './routes.ts';

type Json = Record<string, any>;
const doc = openApiDocument() as Json;

describe('webhooks', () => {
  it('message: documents webhook-ordering-key and webhook-sequence as sent only on ordered deliveries', () => {
    const params = doc['webhooks'].message.post.parameters as Json[];
    for (const name of ['webhook-ordering-key', 'webhook-sequence']) {
      const p = params.find((x) => x.name === name);
      expect(p, name).toMatchObject({ in: 'header', required: false });
      expect(p!['description']).toMatch(/^Only on an ordered delivery/);
    }
    expect(params.filter((p) => p['required']).map((p) => p['name'])).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent']);
  });

  it('failureNotice: the notice body is the AlertNotice component, its timestamp an ISO 8601 string', () => {
    const post = doc['webhooks'].failureNotice.post;
    expect(post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/AlertNotice');
    expect(doc['components'].schemas.AlertNotice.properties.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(post.requestBody.content['application/json'].example.timestamp).toBe('2026-01-01T09:31:01.000Z');
  });
});

describe('response examples', () => {
  /** Every property of the response components, with its path. */
  function* properties(schema: Json, path: string): Generator<[string, string, Json]> {
    for (const [name, prop] of Object.entries((schema['properties'] ?? {}) as Record<string, Json>)) {
      yield [`${path}.${name}`, name, prop];
      yield* properties(prop, `${path}.${name}`);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const s of (schema[key] ?? []) as Json[]) yield* properties(s, path);
  }
  /** The components responses refer to (requests' are written by the caller). */
  const responseComponents = () =>
    Object.entries(doc['components'].schemas as Record<string, Json>).filter(([name]) => !/(Request|Update)$/.test(name) && name !== 'AlertNotice');
  const exampleOf = (prop: Json): unknown => prop['examples']?.[0] ?? (prop['anyOf'] as Json[] | undefined)?.find((s) => s['examples'])?.['examples'][0];

  it('every id of a response has an example with its prefix', () => {
    const prefixes = Object.values(ID_PREFIX);
    const ids = responseComponents().flatMap(([name, s]) => [...properties(s, name)].filter(([, key]) => key === 'id' || key.endsWith('_id')));
    expect(ids.length).toBeGreaterThan(15);
    for (const [path, key, prop] of ids) {
      // Not Wirehook's ids: a customer's own, a notice's, an OAuth client's (the token endpoint's).
      if (key === 'external_id' || key === 'notice_id' || key === 'client_id') continue;
      const example = exampleOf(prop);
      expect(typeof example === 'string' && prefixes.some((p) => example.startsWith(p)), `${path}: ${String(example)}`).toBe(true);
    }
  });

  it('every time of a response (…_at, Unix ms) has an example', () => {
    const times = responseComponents().flatMap(([name, s]) => [...properties(s, name)].filter(([, key]) => key.endsWith('_at')));
    expect(times.length).toBeGreaterThan(10);
    for (const [path, , prop] of times) expect(exampleOf(prop), path).toBe(Date.UTC(2026, 0, 1, 9, 30));
  });
});

describe('servers of the served document', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  async function served(publicUrl?: string): Promise<{ origin: string; servers: Json[] }> {
    const app = express().use(apiDocsRouter({ publicUrl }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    close = () => server.close();
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const body = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as Json;
    return { origin, servers: body['servers'] };
  }

  it('names the origin it was asked from when no public URL is set (PORT and host included)', async () => {
    const { origin, servers } = await served();
    expect(servers).toEqual([{ url: origin, description: 'This Wirehook' }]);
  });

  it('names API_PUBLIC_URL when set', async () => {
    const { servers } = await served('https://api.acme.example/');
    expect(servers).toEqual([{ url: 'https://api.acme.example', description: 'This Wirehook' }]);
  });

  it('the committed document keeps the documented placeholder', () => {
    expect(doc['servers']).toEqual([expect.objectContaining({ url: '{base_url}', description: expect.stringContaining('placeholder') })]);
  });
});
