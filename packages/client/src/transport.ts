import { type RequestTarget, WirehookApiError, WirehookNetworkError } from './errors.ts';
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

/** Per-call options every method takes as its last argument. */
export interface RequestOptions {
  /**
   * Cancels the call: the attempt in flight and any wait before a retry. The call then rejects
   * with the signal's reason (an `AbortError` DOMException for `controller.abort()`), as fetch does.
   */
  signal?: AbortSignal | undefined;
  /** This call's per-attempt timeout in ms, answer body included; 0 for none. Default: the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /**
   * Retries of this call after a network error or a 5xx (reads, and sends with an idempotency
   * key); 0 turns them off. Default: the client's `maxRetries`.
   */
  maxRetries?: number | undefined;
}

/** Settings of a {@link Transport}. */
export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  fetch?: FetchLike | undefined;
  retryOn429?: boolean | RetryOn429 | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
}

/** One API call. `path` is already encoded (see {@link path}). */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /**
   * Whether sending the request twice has the effect of sending it once, so a network error or
   * a 5xx may be retried: true for GET and PUT, and for a send carrying an idempotency key.
   */
  idempotent?: boolean | undefined;
}

/** A success answer: its status, headers and parsed JSON body (undefined when empty, e.g. 204). */
export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default retries after a network error or a 5xx, for the calls that are safe to repeat. */
export const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY: Required<RetryOn429> = { maxRetries: 3, maxWaitSeconds: 60 };

/**
 * Sends requests to the API: the key, JSON in and out, a timeout per attempt, typed errors,
 * retries of what is safe to repeat, the optional waits on 429, and the latest rate-limit
 * headers seen.
 */
export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #retry: Required<RetryOn429> | undefined;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
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
    this.#maxRetries = checkedRetries(options.maxRetries ?? DEFAULT_MAX_RETRIES, 'maxRetries');
  }

  /** The rate-limit headers of the latest answer that had them (any call of this client). */
  get lastRateLimit(): RateLimit | undefined {
    return this.#lastRateLimit;
  }

  /** How many times a call with `options` may be retried after a network error or a 5xx, if it is safe to repeat. */
  maxRetries(options: RequestOptions): number {
    return options.maxRetries === undefined ? this.#maxRetries : checkedRetries(options.maxRetries, 'maxRetries');
  }

  /**
   * Sends `request`; resolves with a 2xx answer, throws {@link WirehookApiError} or
   * {@link WirehookNetworkError}, or the signal's reason once `options.signal` aborts.
   */
  async request<T>(request: ApiRequest, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const { signal } = options;
    signal?.throwIfAborted();
    const info: RequestTarget = { method: request.method, url: this.#url(request) };
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.#apiKey}`, ...request.headers };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) };
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const idempotent = request.idempotent ?? (request.method === 'GET' || request.method === 'PUT');
    const maxRetries = idempotent ? this.maxRetries(options) : 0;

    for (let retries = 0, waits429 = 0; ; ) {
      let failure: WirehookApiError | WirehookNetworkError;
      try {
        const { response, text } = await this.#attempt(info, init, timeoutMs, signal);
        const rateLimit = readRateLimit(response.headers);
        if (rateLimit) this.#lastRateLimit = rateLimit;
        if (response.ok) return { status: response.status, headers: response.headers, body: parseSuccess<T>(info, response, text) };
        failure = new WirehookApiError(info, response.status, parseError(text), response.headers, rateLimit);
      } catch (err) {
        if (!(err instanceof WirehookNetworkError)) throw err;
        failure = err;
      }
      if (failure instanceof WirehookApiError && failure.status === 429) {
        // A 429 was refused before anything was done, so sending the same request again is safe, POSTs included.
        const wait = failure.retryAfterSeconds ?? 1;
        if (!this.#retry || waits429 >= this.#retry.maxRetries || wait > this.#retry.maxWaitSeconds) throw failure;
        waits429++;
        await sleep(wait * 1000, signal);
        continue;
      }
      if (retries >= maxRetries || !transient(failure)) throw failure;
      retries++;
      await sleep(backoffMs(retries), signal);
    }
  }

  /** One fetch with its body read, both within the timeout, cancelled by `signal`. */
  async #attempt(info: RequestTarget, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs)
        : undefined;
    const cancel = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      // No redirects: a 301/302 would turn a POST into a GET whose answer looks like success.
      const response = await this.#fetch(info.url, { ...init, redirect: 'error', signal: controller.signal });
      return { response, text: await response.text() };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) throw new WirehookNetworkError(info, 'timeout', `no complete answer within ${timeoutMs} ms (timeoutMs)`, { cause: err });
      throw new WirehookNetworkError(info, 'connection', describe(err, info.url), { cause: err });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
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
 * Whether a failure may pass if the same request is sent again: no answer (connection, timeout)
 * or a 5xx other than 501. A success that was not JSON (a proxy's page) would come back the same.
 */
function transient(failure: WirehookApiError | WirehookNetworkError): boolean {
  if (failure instanceof WirehookNetworkError) return failure.reason !== 'invalid_response';
  return failure.status >= 500 && failure.status !== 501;
}

/** The wait before retry `n` (1, 2, …): 0.5 s doubling up to 8 s, less up to a quarter at random so clients spread out. */
export function backoffMs(n: number): number {
  const base = Math.min(500 * 2 ** (n - 1), 8_000);
  return Math.round(base * (1 - Math.random() * 0.25));
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
      requestId: response.headers.get('x-request-id') ?? undefined,
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
function describe(err: unknown, url: string): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const why = cause && (typeof cause.message === 'string' && cause.message ? cause.message : typeof cause.code === 'string' ? cause.code : undefined);
  // fetch refuses the Fetch standard's "bad ports" before connecting; its cause says only "bad port".
  if (why === 'bad port') {
    const port = new URL(url).port;
    return `${err.message} (bad port: fetch refuses port ${port}, one of the Fetch standard's blocked ports such as 6000 and 10080; serve the API on another)`;
  }
  return why && !err.message.includes(why) ? `${err.message} (${why})` : err.message;
}

function definedOnly(retry: RetryOn429): RetryOn429 {
  return Object.fromEntries(Object.entries(retry).filter(([, v]) => v !== undefined));
}

function checkedRetries(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`Wirehook: ${name} must be a whole number, 0 or more (got ${value})`);
  return value;
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', cancel);
      resolve();
    };
    const cancel = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', cancel, { once: true });
  });
}
