/**
 * A small key-value store for expiring counters and keys: the API's rate limits, and in
 * cluster mode the idempotency front's in-flight markers and remembered answers (the store
 * stays the arbiter of Idempotency-Keys: it checks and writes them in the transaction that
 * writes the message, so accepting one is atomic; usage counters live there too). Every key
 * has an expiry. Adapters: `MemoryKv` (embedded mode) and Redis (cluster mode); both pass
 * `describeKvContract`.
 *
 * Each method maps to one atomic Redis operation: `incr` to INCR plus PEXPIRE on
 * creation (one Lua script or MULTI), `setIfAbsent` to `SET key value NX PX ttl GET`,
 * `set` to `SET key value PX ttl`, `get` to GET, `delete` to DEL, `deleteIfEquals` to GET,
 * compare and DEL in one Lua script, `compareAndSet` to GET, compare and SET PX (or DEL) in one
 * Lua script, `logAdmit` to one Lua script over a sorted set
 * (ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE), `logAdmitLimitedBy` to one Lua script that GETs the
 * limit's key and then admits as `logAdmit`, `logRemove` to ZREM (and PUBLISH, one script, when it
 * signals), `logCount` to ZCOUNT, `listen` to SUBSCRIBE on a second connection, `close` to QUIT.
 */
export interface Kv {
  /**
   * Atomically adds 1 to the integer at `key` and returns the new value. A missing (or
   * expired) key starts at 0 and gets `ttlMs` as its expiry; an existing key keeps the
   * expiry it has. Rejects when the value is not an integer or `ttlMs` is not a positive
   * integer.
   */
  incr(key: string, ttlMs: number): Promise<number>;

  /** The value at `key`, or null when missing or expired. Counters read as decimal strings. */
  get(key: string): Promise<string | null>;

  /**
   * First writer wins: when `key` is missing (or expired), stores `value` with `ttlMs` and
   * returns null; otherwise leaves the key and its expiry alone and returns the stored
   * value. Rejects when `ttlMs` is not a positive integer.
   */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;

  /**
   * Stores `value` at `key` with `ttlMs`, replacing whatever value and expiry it had.
   * Rejects when `ttlMs` is not a positive integer.
   */
  set(key: string, value: string, ttlMs: number): Promise<void>;

  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;

  /**
   * Removes `key` only while it holds exactly `value` (a marker's owner clearing its own
   * marker, never one another writer put there since); @returns whether it was removed.
   */
  deleteIfEquals(key: string, value: string): Promise<boolean>;

  /**
   * Replaces the value at `key` only while it is exactly `expected` (null: the key is missing
   * or expired): with `next` and `ttlMs` as its expiry, or removes the key when `next` is null.
   * A read-modify-write that loses to another writer in between changes nothing (two
   * dispatchers moving one endpoint's adaptive limit). @returns whether it replaced the value.
   * Rejects when `ttlMs` is not a positive integer.
   */
  compareAndSet(key: string, expected: string | null, next: string | null, ttlMs: number): Promise<boolean>;

  /**
   * A sliding log at `key` (an endpoint's sends of the last second, or its sends in
   * flight): forgets entries at or before `now - windowMs`; when fewer than `limit` remain,
   * adds `member` at `now` and returns 0; otherwise adds nothing and returns the ms until the
   * oldest entry leaves the window (at least 1). The key lives `windowMs` past its newest entry.
   * Rejects when `limit` or `windowMs` is not a positive integer.
   */
  logAdmit(key: string, member: string, limit: number, windowMs: number, now: number): Promise<number>;

  /**
   * `logAdmit` with its limit read in the same atomic step from the value at `limitKey` (an
   * endpoint's adaptive limit beside its flight: one round trip, and no change of the limit between
   * the read and the admit): that value's `limit` when it is a JSON object whose `limit` is a
   * positive safe integer, else `defaultLimit` (missing or expired, not JSON, no such field).
   * @returns `wait`, as `logAdmit` answers, and `limitValue`, the value at `limitKey` as read
   * (null: missing or expired). Rejects when `defaultLimit` or `windowMs` is not a positive integer.
   */
  logAdmitLimitedBy(
    key: string,
    member: string,
    limitKey: string,
    defaultLimit: number,
    windowMs: number,
    now: number,
  ): Promise<{ wait: number; limitValue: string | null }>;

  /**
   * Removes `member` from the log at `key` (a send that ended); a missing one is not an error.
   * With `signal`, in the same atomic step, tells every `listen`er of that channel, in any
   * process, that a place may have freed (waiters are woken by this, not by polling).
   */
  logRemove(key: string, member: string, signal?: string): Promise<void>;

  /**
   * Calls `onSignal` for each `logRemove` signal on `channel` from the moment this resolves
   * until the function it resolves to is called. At most once: a signal sent while the
   * listener's connection is down is lost, so a listener keeps a slower check of its own.
   * Rejects when the store cannot be reached.
   */
  listen(channel: string, onSignal: () => void): Promise<() => void>;

  /** How many entries of the log at `key` are after `now - windowMs`. */
  logCount(key: string, windowMs: number, now: number): Promise<number>;

  /** Releases the store. Idempotent; other calls reject afterwards. */
  close(): Promise<void>;
}

/** Throws a RangeError unless `ttlMs` is a positive safe integer; adapters call it first. */
export function assertTtlMs(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`kv: ttlMs must be a positive integer of milliseconds, got ${ttlMs}`);
  }
}

/** Throws a RangeError unless `limit` and `windowMs` are positive safe integers. */
export function assertLog(limit: number, windowMs: number): void {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`kv: a log's limit must be a positive integer, got ${limit}`);
  assertTtlMs(windowMs);
}

/**
 * How far ahead of a caller's time a sliding log's entry must be stamped (or the window, if
 * longer) to count as made before the clock stepped back: restamped at the caller's time, it holds
 * the window a minute at most rather than for the step. Nearer entries keep their time — another
 * dispatcher's, whose clock runs a little ahead.
 */
export const STEPPED_BACK_MS = 60_000;
