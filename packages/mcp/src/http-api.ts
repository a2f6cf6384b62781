import { request } from 'undici';
import type { WirehookApi } from './tools.ts';

/**
 * The tools' way to the API over HTTP: `base` (no trailing slash) with the caller's
 * `authorization`, each answer as it came (a 204's empty body, or one that is not JSON, reads as
 * null). undici's `request`, not fetch: fetch refuses the Fetch standard's "bad ports", and an
 * API on 10080, 6000 or 5060 would have failed every tool call.
 */
export function apiOverHttp(base: string, authorization: string): WirehookApi {
  return {
    async request(method, path, body) {
      const res = await request(`${base}${path}`, {
        method,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Read to its end either way, so the connection is kept.
      return { status: res.statusCode, body: await res.body.json().catch(() => null) };
    },
  };
}
