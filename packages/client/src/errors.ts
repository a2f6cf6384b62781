import type { RateLimit } from './rate-limit.ts';
import type { ErrorCode } from './types.ts';

/**
 * Each error code with the HTTP status the API answers it with. Typed against the document's
 * code union both ways: a code added to or dropped from the API fails the type-check here.
 */
export const ERROR_STATUS = {
  unauthorized: 401,
  plan_limit: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  invalid: 422,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

const CODE_OF_STATUS = new Map<number, ErrorCode>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** What the request was, for error messages and logs. */
export interface RequestTarget {
  method: string;
  /** The full URL, query included (never the key: that travels in a header). */
  url: string;
}

/**
 * The API answered with an error: `{ error, message }` and a 4xx/5xx status. `code` is the
 * spec's error code, `message` the server's own words. Narrow on `code`:
 *
 * ```ts
 * if (err instanceof WirehookApiError && err.code === 'conflict') …
 * if (isWirehookApiError(err, 'rate_limited')) console.log(err.retryAfterSeconds);
 * ```
 */
export class WirehookApiError extends Error {
  /** The HTTP status, e.g. 409. */
  readonly status: number;
  /**
   * The error code of the body. A body without a known code (e.g. an HTML page from a proxy)
   * gets the code of its status, or `internal`.
   */
  readonly code: ErrorCode;
  /** On a 429: seconds until a request is allowed again (`retry-after`); otherwise undefined. */
  readonly retryAfterSeconds: number | undefined;
  /** The rate-limit headers of this answer, when it had them. */
  readonly rateLimit: RateLimit | undefined;
  readonly method: string;
  readonly url: string;
  /** The parsed body, or its text when it was not JSON. */
  readonly body: unknown;
  /**
   * The answer's `x-request-id`, to quote when you ask about this request; undefined when the
   * server (or a proxy in front of it) sent none.
   */
  readonly requestId: string | undefined;

  constructor(request: RequestTarget, status: number, body: unknown, headers: Headers, rateLimit: RateLimit | undefined) {
    const parsed = errorBody(body);
    const code = parsed?.code ?? CODE_OF_STATUS.get(status) ?? 'internal';
    super(parsed?.message ?? `${request.method} ${request.url} answered ${status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'WirehookApiError';
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = status === 429 ? retryAfter(headers) : undefined;
    this.rateLimit = rateLimit;
    this.method = request.method;
    this.url = request.url;
    this.body = body;
    this.requestId = headers.get('x-request-id') ?? undefined;
  }
}

/** A {@link WirehookApiError} of one code; a 429's `retryAfterSeconds` is always set. */
export type WirehookApiErrorOf<C extends ErrorCode> = WirehookApiError & { readonly code: C } & (C extends 'rate_limited'
    ? { readonly retryAfterSeconds: number }
    : unknown);

/** Whether `err` is an API error (of `code`, when given): a type guard that narrows to it. */
export function isWirehookApiError<C extends ErrorCode = ErrorCode>(err: unknown, code?: C): err is WirehookApiErrorOf<C> {
  return err instanceof WirehookApiError && (code === undefined || err.code === code);
}

/** Why a request got no usable answer. */
export type NetworkFailure = 'timeout' | 'connection' | 'invalid_response';

/**
 * No usable answer came: the connection failed (DNS, refused, TLS, reset), the request timed
 * out, or a success answer was not JSON. The message says which request and what failed;
 * `cause` holds the underlying error. A send may or may not have been stored: retry it with
 * the same idempotency key.
 */
export class WirehookNetworkError extends Error {
  readonly reason: NetworkFailure;
  readonly method: string;
  readonly url: string;
  /** The answer's `x-request-id` when an answer came (`invalid_response`) and had one; otherwise undefined. */
  readonly requestId: string | undefined;

  constructor(request: RequestTarget, reason: NetworkFailure, detail: string, options?: ErrorOptions & { requestId?: string | undefined }) {
    super(`${request.method} ${request.url} failed: ${detail}`, options);
    this.name = 'WirehookNetworkError';
    this.reason = reason;
    this.method = request.method;
    this.url = request.url;
    this.requestId = options?.requestId;
  }
}

function errorBody(body: unknown): { code: ErrorCode | undefined; message: string | undefined } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, message } = body as Record<string, unknown>;
  return {
    code: typeof error === 'string' && Object.hasOwn(ERROR_STATUS, error) ? (error as ErrorCode) : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

/**
 * `retry-after` in whole seconds, at least 1: absent, not a number or 0 (a proxy's) is 1, so
 * a retrying client never hammers the API (the server itself always sends 1 or more).
 */
export function retryAfter(headers: Headers): number {
  const raw = headers.get('retry-after')?.trim();
  const seconds = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 1 ? Math.ceil(seconds) : 1;
}
