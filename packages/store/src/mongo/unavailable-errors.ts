import { UnavailableError } from '@wirehook/core';
import type { Store } from '../store.ts';
import { unavailableKind } from './errors.ts';

/**
 * The store with every repo call's failover errors as core's UnavailableError (503 at the API,
 * UNAVAILABLE across gRPC): a primary stepping down, no primary to reach, a connection lost,
 * a majority not confirming in time (isFailoverError). The caller can only try again later —
 * a message with its Idempotency-Key is not sent twice — where an opaque 500 would say the
 * request itself was at fault. Every other error passes as it is, the driver's own included (a
 * duplicate key is the repo's to read, inside it).
 */
export function withUnavailableErrors<S extends Store>(store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, part] of Object.entries(store)) {
    out[name] = typeof part === 'function' ? translated(part, store) : typeof part === 'object' && part !== null ? repoWith(part) : part;
  }
  return out as S;
}

/**
 * What a failover answers: the driver's message (a member's address, a connection's number)
 * stays in the cause, which is logged, not sent. A write's outcome is unknown then.
 */
export const FAILOVER_MESSAGE =
  'the database is failing over or cannot be reached; a write may or may not have been made: ' +
  'repeat a message with its Idempotency-Key, and look before repeating another write';

/** What a database too slow to answer says (unavailableKind `overload`: overloaded, or a primary going away); the outcome is as unknown. */
export const OVERLOAD_MESSAGE =
  'the database did not answer in time (overloaded, or a primary going away); a write may or may not have been made: ' +
  'repeat a message with its Idempotency-Key, and look before repeating another write';

/** `err` as UnavailableError when it is a failover's (an overload's its own message), else itself. */
function asUnavailable(err: unknown): unknown {
  const kind = unavailableKind(err);
  if (kind === null) return err;
  return kind === 'overload'
    ? new UnavailableError(OVERLOAD_MESSAGE, { cause: err, overloaded: true })
    : new UnavailableError(FAILOVER_MESSAGE, { cause: err });
}

/** A repo (a class: its state private) whose methods, bound to it, translate their errors. */
function repoWith(repo: object): object {
  const methods: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(repo); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = (repo as Record<string, unknown>)[key];
      if (key !== 'constructor' && !(key in methods) && typeof value === 'function') methods[key] = translated(value as (...a: unknown[]) => unknown, repo);
    }
  }
  return methods;
}

function translated(fn: (...args: unknown[]) => unknown, self: unknown): (...args: unknown[]) => unknown {
  return (...args) => {
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (err) {
      throw asUnavailable(err);
    }
    return result instanceof Promise
      ? result.catch((err: unknown) => {
          throw asUnavailable(err);
        })
      : result;
  };
}
