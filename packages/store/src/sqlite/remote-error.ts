import { errorForCode, RateLimitedError, WirehookError } from '@wirehook/core/without-schemas';

/** An error as it crosses from the store's worker thread to the caller's. */
export interface SerializedError {
  name: string;
  message: string;
  stack: string | undefined;
  /** A WirehookError's code, or a Node/SQLite error code (e.g. ERR_SQLITE_ERROR). */
  code: unknown;
  /** SQLite's extended result code (node:sqlite's `errcode`: 261 is a busy WAL recovery, 2067 a unique key): the message alone does not tell them apart. */
  errcode: number | undefined;
  retryAfterSeconds: number | undefined;
  wirehook: boolean;
}

const PLAIN_ERRORS: Record<string, new (message: string) => Error> = { Error, RangeError, TypeError, SyntaxError };

/** node:sqlite's extended result code on `e`, if it has one. */
function sqliteErrcode(e: Error): number | undefined {
  const { errcode } = e as { errcode?: unknown };
  return typeof errcode === 'number' ? errcode : undefined;
}

/** What of `err` can cross a thread boundary and be rebuilt by `deserializeError`. */
export function serializeError(err: unknown): SerializedError {
  const e = err instanceof Error ? err : new Error(String(err));
  return {
    name: e.name,
    message: e.message,
    stack: e.stack,
    code: (e as { code?: unknown }).code,
    errcode: sqliteErrcode(e),
    retryAfterSeconds: e instanceof RateLimitedError ? e.retryAfterSeconds : undefined,
    wirehook: e instanceof WirehookError,
  };
}

/** The error again, of the same class for Wirehook's errors and the standard ones, with the remote stack. */
export function deserializeError(s: SerializedError): Error {
  let err: Error;
  if (s.wirehook) {
    err = errorForCode(String(s.code), s.message, s.retryAfterSeconds ?? 1);
  } else {
    err = new (PLAIN_ERRORS[s.name] ?? Error)(s.message);
    if (!(s.name in PLAIN_ERRORS)) err.name = s.name;
    if (s.code !== undefined) (err as { code?: unknown }).code = s.code;
    if (s.errcode !== undefined) (err as { errcode?: number }).errcode = s.errcode;
  }
  if (s.stack !== undefined) err.stack = s.stack;
  return err;
}
