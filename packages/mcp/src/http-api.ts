import { getGlobalDispatcher, interceptors, request } from 'undici';
import type { WirehookApi } from './tools.ts';

/**
 * The tools' way to the API over HTTP: `base` (no trailing slash) with the caller's
 * `authorization`, each answer as it came (a 204's empty body, or one that is not JSON, reads as
 * null). undici's `request`, not fetch: fetch refuses the Fetch standard's "bad ports", and an
 * API on 10080, 6000 or 5060 would have failed every tool call. Redirects are followed (up to 5),
 * as fetch followed them: a 3xx answered as it came would read as a tool's success with nothing
 * done. As with fetch, a redirect to another origin (another scheme, host or port) drops the
 * key, so the API there answers 401: a visible error, not a key sent where it was not meant to go.
 */
export function apiOverHttp(base: string, authorization: string): WirehookApi {
  return {
    async request(method, path, body) {
      const res = await request(`${base}${path}`, {
        // Composed on each call: the global dispatcher as it is now (a test's or a proxy's, set later).
        dispatcher: getGlobalDispatcher().compose(interceptors.redirect({ maxRedirections: 5, throwOnMaxRedirect: true })),
        method,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Read to its end either way, so the connection is kept.
      return { status: res.statusCode, body: await res.body.json().catch(() => null) };
    },
  };
}
