import { getGlobalDispatcher, interceptors, request } from 'undici';
import type { WirehookApi } from './tools.ts';

/**
 * The tools' way to the API over HTTP: `base` (no trailing slash) with the caller's
 * `authorization`, each answer as it came (a 204's empty body, or one that is not JSON, reads as
 * null). undici's `request`, not fetch: fetch refuses the Fetch standard's "bad ports", and an
 * API on 10080, 6000 or 5060 would have failed every tool call. Redirects are followed, as fetch
 * followed them (an API URL of http:// behind a proxy that sends it to https://): a 3xx answered
 * as it came would read as a tool's success with nothing done.
 */
export function apiOverHttp(base: string, authorization: string): WirehookApi {
  return {
    async request(method, path, body) {
      const res = await request(`${base}${path}`, {
        dispatcher: followingRedirects(),
        method,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Read to its end either way, so the connection is kept.
      return { status: res.statusCode, body: await res.body.json().catch(() => null) };
    },
  };
}

/** The global dispatcher, following up to 5 redirects (undici drops the authorization on a redirect to another origin). */
let following: ReturnType<ReturnType<typeof getGlobalDispatcher>['compose']> | undefined;
function followingRedirects() {
  following ??= getGlobalDispatcher().compose(interceptors.redirect({ maxRedirections: 5 }));
  return following;
}
