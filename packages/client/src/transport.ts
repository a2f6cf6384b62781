import { type RequestTarget, retryAfter, WirehookApiError, WirehookNetworkError } from './errors.ts';
import { type RateLimit, readRateLimit } from './rate-limit.ts';

/** The part of `fetch` the client uses; the global `fetch` of Node 18+, Deno, Bun, browsers and Workers fits. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** How 429 answers are retried: at most `maxRetries` times, each after `retry-after` seconds. */
export interface RetryOn429 {
  /** Retries after the first 429 before giving up; default 3. */
  maxRetries?: number;
  /** The longest `retry-after` waited; a longer one is thrown at once. Default 60 s. */
  maxWaitSeconds?: number;
}

/** Settings of a {@link Transport}. */
export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  fetch?: FetchLike | undefined;
  retryOn429?: boolean | RetryOn429 | undefined;
  timeoutMs?: number | undefined;
}

/** One API call. `path` is already encoded (see {@link path}). */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
}

/** A success answer: its status, headers and parsed JSON body (undefined when empty, e.g. 204). */
export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRY: Required<RetryOn429> = { maxRetries: 3, maxWaitSeconds: 60 };

/**
 * Sends requests to the API: the key, JSON in and out, a timeout per attempt, typed errors,
 * the optional waits on 429, and the latest rate-limit headers seen.
 */
export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #retry: Required<RetryOn429> | undefined;
  readonly #timeoutMs: number;
  #lastRateLimit: RateLimit | undefined;

  constructor(options: TransportOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Wirehook: apiKey is required (sk_live_… or sk_test_…)');
    this.#apiKey = options.apiKey;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Looked up at call time and called unbound: Workers and browsers refuse `fetch` called as a method of another object.
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    const retry = options.retryOn429;
    this.#retry = retry === true ? DEFAULT_RETRY : retry ? { ...DEFAULT_RETRY, ...definedOnly(retry) } : undefined;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The rate-limit headers of the latest answer that had them (any call of this client). */
  get lastRateLimit(): RateLimit | undefined {
    return this.#lastRateLimit;
  }

  /** Sends `request`; resolves with a 2xx answer, throws {@link WirehookApiError} or {@link WirehookNetworkError}. */
  async request<T>(request: ApiRequest): Promise<ApiResponse<T>> {
    const info: RequestTarget = { method: request.method, url: this.#url(request) };
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.#apiKey}`, ...request.headers };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) };

    for (let retries = 0; ; retries++) {
      const { response, text } = await this.#attempt(info, init);
      const rateLimit = readRateLimit(response.headers);
      if (rateLimit) this.#lastRateLimit = rateLimit;
      if (response.ok) return { status: response.status, headers: response.headers, body: parseSuccess<T>(info, response, text) };

      const error = new WirehookApiError(info, response.status, parseError(text), response.headers, rateLimit);
      const wait = response.status === 429 ? retryAfter(response.headers) : undefined;
      // A 429 was refused before anything was done, so sending the same request again is safe, POSTs included.
      if (wait === undefined || !this.#retry || retries >= this.#retry.maxRetries || wait > this.#retry.maxWaitSeconds) throw error;
      await sleep(wait * 1000);
    }
  }

  /** One fetch with its body read, both within the timeout. */
  async #attempt(info: RequestTarget, init: RequestInit): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      this.#timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, this.#timeoutMs)
        : undefined;
    try {
      // No redirects: a 301/302 would turn a POST into a GET whose answer looks like success.
      const response = await this.#fetch(info.url, { ...init, redirect: 'error', signal: controller.signal });
      return { response, text: await response.text() };
    } catch (err) {
      if (timedOut) throw new WirehookNetworkError(info, 'timeout', `no complete answer within ${this.#timeoutMs} ms (timeoutMs)`, { cause: err });
      throw new WirehookNetworkError(info, 'connection', describe(err), { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  #url(request: ApiRequest): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.toString();
    return `${this.baseUrl}${request.path}${search ? `?${search}` : ''}`;
  }
}

/**
 * Builds a path from a template, percent-encoding every interpolated id:
 * path`/v1/endpoints/${id}` with id `a/b` gives `/v1/endpoints/a%2Fb`.
 */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  return strings.reduce((out, part, i) => out + part + (i < ids.length ? encodeURIComponent(String(ids[i])) : ''), '');
}

function parseSuccess<T>(info: RequestTarget, response: Response, text: string): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new WirehookNetworkError(info, 'invalid_response', `answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, {
      cause: err,
    });
  }
}

function parseError(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** fetch's own message says little ("fetch failed"); the cause's code says what failed (connect ECONNREFUSED …, getaddrinfo ENOTFOUND …). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const why = cause && (typeof cause.message === 'string' && cause.message ? cause.message : typeof cause.code === 'string' ? cause.code : undefined);
  return why && !err.message.includes(why) ? `${err.message} (${why})` : err.message;
}

function definedOnly(retry: RetryOn429): RetryOn429 {
  return Object.fromEntries(Object.entries(retry).filter(([, v]) => v !== undefined));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
