/** The spec's error codes with their HTTP status. */
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
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The body of every error response: `{ error, message }`. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
}

/** An error whose code and message may be shown to the caller as they are. */
export class WirehookError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}

export class InvalidError extends WirehookError {
  constructor(message: string) {
    super('invalid', message);
  }
}
export class UnauthorizedError extends WirehookError {
  constructor(message = 'missing, wrong, revoked or expired API key') {
    super('unauthorized', message);
  }
}
export class ForbiddenError extends WirehookError {
  constructor(message: string) {
    super('forbidden', message);
  }
}
export class NotFoundError extends WirehookError {
  constructor(message: string) {
    super('not_found', message);
  }
}
export class ConflictError extends WirehookError {
  constructor(message: string) {
    super('conflict', message);
  }
}
export class TooLargeError extends WirehookError {
  constructor(message: string) {
    super('too_large', message);
  }
}
export class PlanLimitError extends WirehookError {
  constructor(message: string) {
    super('plan_limit', message);
  }
}
export class UnavailableError extends WirehookError {
  /**
   * The database refused the work or ran out of time for it (overloaded) — which a primary going
   * away, or this process's own pool with no connection free in time, can look like too —, rather
   * than failing over or being out of reach: a caller that can hold its own work back should (the
   * dispatcher holds the tenant's: services/dispatcher/src/tenant-holds.ts). Within a process
   * only; not sent across gRPC.
   */
  readonly overloaded: boolean;

  constructor(message: string, options?: ErrorOptions & { overloaded?: boolean }) {
    super('unavailable', message, options);
    this.overloaded = options?.overloaded ?? false;
  }
}

/** 429 with the number of seconds until a retry is allowed (the `retry-after` header). */
export class RateLimitedError extends WirehookError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Maps anything thrown to a status and a body safe to show. Unknown errors become an
 * opaque 500; the caller logs the original.
 */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof WirehookError) return { status: err.status, body: err.toBody() };
  return { status: 500, body: { error: 'internal', message: 'internal error; it has been logged' } };
}

const ERROR_OF_CODE: Readonly<Record<ErrorCode, (message: string, retryAfterSeconds: number) => WirehookError>> = {
  invalid: (m) => new InvalidError(m),
  too_large: (m) => new TooLargeError(m),
  not_found: (m) => new NotFoundError(m),
  conflict: (m) => new ConflictError(m),
  plan_limit: (m) => new PlanLimitError(m),
  rate_limited: (m, s) => new RateLimitedError(m, s),
  unauthorized: (m) => new UnauthorizedError(m),
  forbidden: (m) => new ForbiddenError(m),
  unavailable: (m) => new UnavailableError(m),
  internal: (m) => new WirehookError('internal', m),
};

/**
 * Rebuilds the typed error for a code, e.g. after it crossed a process or thread boundary
 * (gRPC metadata, a worker thread). An unknown code gives an `internal` error.
 */
export function errorForCode(code: string, message: string, retryAfterSeconds = 1): WirehookError {
  const make = ERROR_OF_CODE[code as ErrorCode] ?? ERROR_OF_CODE.internal;
  return make(message, retryAfterSeconds);
}
