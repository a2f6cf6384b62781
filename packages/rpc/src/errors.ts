import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { ERROR_STATUS, errorForCode, RateLimitedError, UnavailableError, WirehookError, type ErrorCode } from '@wirehook/core';

/**
 * The metadata key of a failed call's Wirehook error: UTF-8 JSON
 * `{ error, message, retry_after_seconds? }`. Binary (`-bin`) because messages are not
 * always ASCII.
 */
export const ERROR_METADATA_KEY = 'wirehook-error-bin';

/** The gRPC status each Wirehook error code travels as. */
export const GRPC_STATUS: Readonly<Record<ErrorCode, status>> = Object.freeze({
  invalid: status.INVALID_ARGUMENT,
  too_large: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  // Our conflicts are about state ("the endpoint is paused"), not about a name taken.
  conflict: status.FAILED_PRECONDITION,
  plan_limit: status.RESOURCE_EXHAUSTED,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unauthorized: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
});

/** A failed call that carried no Wirehook error: a bug or a transport failure, answered as an opaque 500. */
export class RpcError extends Error {
  /** The gRPC status code. */
  readonly code: status;
  /** `/package.Service/Method` */
  readonly path: string;

  constructor(path: string, code: status, details: string, options?: ErrorOptions) {
    super(`${path} failed: ${status[code] ?? code}: ${details}`, options);
    this.name = 'RpcError';
    this.code = code;
    this.path = path;
  }
}

/**
 * Whether a service logs `err` where it was thrown: a fault (not a WirehookError), or a
 * dependency down whose cause it keeps (a store failing over) — the caller gets only the code
 * and message. An answer for the caller's request (4xx, or a 503 of the service's own) is not.
 */
export function loggedWhereThrown(err: unknown): boolean {
  return !(err instanceof WirehookError) || (err.status >= 500 && err.cause !== undefined);
}

/**
 * What a server answers for `err`: a WirehookError as its gRPC status with the exact code and
 * message in metadata; anything else as INTERNAL with an opaque message (the server logs it).
 */
export function toStatus(err: unknown): Partial<StatusObject> {
  if (!(err instanceof WirehookError)) return { code: status.INTERNAL, details: 'internal error' };
  const { retryAfterSeconds, ...carried } = carriedError(err);
  const body = { error: carried.code, message: carried.message, ...(retryAfterSeconds === undefined ? {} : { retry_after_seconds: retryAfterSeconds }) };
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(body)));
  return { code: GRPC_STATUS[err.code], details: err.message, metadata };
}

/** What a caller of a call that ended in doubt may do: a send keyed again is not written twice. */
export const RETRY_SAFELY = 'try again (a message sent again with the same Idempotency-Key is not sent twice)';

/**
 * What a client throws for a failed call: the WirehookError the server threw (same subclass,
 * code and message); for UNAVAILABLE or DEADLINE_EXCEEDED without one, an UnavailableError
 * naming `service`; otherwise an RpcError. A status alone is never trusted as a Wirehook
 * error: grpc-js itself answers RESOURCE_EXHAUSTED, UNIMPLEMENTED and INTERNAL for its own
 * failures, and those are ours to log, not the API caller's to read.
 */
export function fromServiceError(err: ServiceError, path: string, service: string, deadlineMs: number): Error {
  const carried = readWirehookError(err.metadata);
  if (carried) return carried;
  if (err.code === status.DEADLINE_EXCEEDED) {
    // Begun in time, it may still have been done: the retry is safe for a send with the same Idempotency-Key.
    return new UnavailableError(`${service} did not answer within ${deadlineMs} ms; it may still have done it: ${RETRY_SAFELY}`, { cause: err });
  }
  if (err.code === status.UNAVAILABLE) {
    return new UnavailableError(`${service} is unavailable; try again`, { cause: err });
  }
  return new RpcError(path, err.code, err.details, { cause: err });
}

/**
 * A Wirehook error as data (a batched call's outcome carries it: intake.proto `CallError`);
 * code '' for a failure that was no Wirehook error (a bug: the server logs it).
 */
export interface CarriedError {
  code: ErrorCode | '';
  message: string;
  retryAfterSeconds?: number;
}

/** What a batched call's item answers for `err`: as toStatus, a WirehookError exactly and anything else opaque. */
export function carriedError(err: unknown): CarriedError {
  if (!(err instanceof WirehookError)) return { code: '', message: 'internal error' };
  return { code: err.code, message: err.message, ...(err instanceof RateLimitedError ? { retryAfterSeconds: err.retryAfterSeconds } : {}) };
}

/**
 * What a client throws for a carried error, as fromServiceError for a failed call: the
 * WirehookError it stands for; for an opaque failure, or a code this version does not know
 * (a newer server's), an RpcError of `path` (INTERNAL), whose message the caller never sees.
 */
export function errorOfCarried(carried: { code: string; message: string; retryAfterSeconds?: number | undefined }, path: string): Error {
  return knownError(carried.code, carried.message, carried.retryAfterSeconds) ?? new RpcError(path, status.INTERNAL, carried.message);
}

/** The WirehookError of a code this version knows; undefined for any other (never trusted as one). */
function knownError(code: string, message: string, retryAfterSeconds: number | undefined): WirehookError | undefined {
  return Object.hasOwn(ERROR_STATUS, code) ? errorForCode(code, message, retryAfterSeconds ?? 1) : undefined;
}

/** The gRPC status `err` travels as (GRPC_STATUS; an RpcError's own), INTERNAL for anything else: a batched item's span. */
export function grpcStatusOf(err: unknown): status {
  if (err instanceof WirehookError) return GRPC_STATUS[err.code];
  return err instanceof RpcError ? err.code : status.INTERNAL;
}

function readWirehookError(metadata: Metadata | undefined): WirehookError | undefined {
  const [value] = metadata?.get(ERROR_METADATA_KEY) ?? [];
  if (value === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(value).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, message, retry_after_seconds: retryAfter } = body as Record<string, unknown>;
  if (typeof error !== 'string' || typeof message !== 'string') return undefined;
  return knownError(error, message, typeof retryAfter === 'number' ? retryAfter : undefined);
}
