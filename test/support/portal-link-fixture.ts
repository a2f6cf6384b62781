// What the portal-link end-to-end files share: embedded Wirehook (its spans recorded), a
// Starter tenant, the portal's page and token API by fetch, and portal links. The bindings below
// are set by usePortalWirehook's beforeAll (ES module bindings are live: importers see them once set).
import { afterAll, beforeAll, expect } from 'vitest';
import { recordSpans, type SpanRecorder } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from './harness.ts';

export let wh: Harness;
export let t: TestTenant;
export let spans: SpanRecorder;

/** Records spans, starts Wirehook and a Starter tenant before the calling file's tests; closes Wirehook after them. */
export function usePortalWirehook(): void {
  beforeAll(async () => {
    spans = await recordSpans('portal-link');
    wh = await startWirehook();
    t = await wh.tenant({ plan: 'starter' });
  });
  afterAll(() => wh.close());
}

/** GETs a path of the portal's port, redirects not followed. */
export const page = (path: string, headers: Record<string, string> = {}) => fetch(`${wh.embedded.portalUrl()}${path}`, { headers, redirect: 'manual' });
/** Calls the portal's token API with a link's token; the body is null for 204. */
export const portalApi = async (token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${wh.embedded.portalUrl()}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as any) };
};
/** A portal link (made with t) to one of its consumers: its URL, token and expiry. */
export async function link(consumerId: string, body: Record<string, unknown> = {}) {
  const res = await t.api.post(`/v1/consumers/${consumerId}/portal`, body);
  expect(res.status).toBe(201);
  return { url: res.body.url as string, token: (res.body.url as string).split('/l/')[1]!, expiresAt: res.body.expires_at as number };
}
