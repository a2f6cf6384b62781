// A fetch double for the unit tests: records each request and answers from a function.
import type { FetchLike } from '../transport.ts';

/** A request as the fake saw it. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body text, or undefined when none was sent. */
  body: string | undefined;
  signal: AbortSignal | undefined;
  /** How redirects were to be handled. */
  redirect: RequestRedirect | undefined;
}

/** A fetch that records every request and answers `respond(request, index)`. */
export function fakeFetch(respond: (request: SeenRequest, index: number) => Response | Promise<Response>): { fetch: FetchLike; requests: SeenRequest[] } {
  const requests: SeenRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request: SeenRequest = {
      method: init.method ?? 'GET',
      url: new URL(url),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
      signal: init.signal ?? undefined,
      redirect: init.redirect,
    };
    requests.push(request);
    return respond(request, requests.length - 1);
  };
  return { fetch, requests };
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The rate-limit headers the API sends. */
export function rateLimitHeaders(limit: number, remaining: number, reset: number): Record<string, string> {
  return { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) };
}
