import type { Clock } from '@wirehook/core';
import { assertLog, assertTtlMs, type Kv, STEPPED_BACK_MS } from './kv.ts';

/** Options for {@link MemoryKv}. */
export interface MemoryKvOptions {
  /** Judges expiry; tests pass a ManualClock and move it. */
  clock: Clock;
  /** How often `start()` sweeps out expired entries. Default 60000. */
  sweepIntervalMs?: number | undefined;
}

interface Entry {
  value: string;
  /** Unix ms; the entry is gone from this instant on. */
  expiresAt: number;
}

const INTEGER = /^-?\d+$/;

/**
 * The in-process Kv of embedded mode: a Map with expiry judged against the clock.
 * Expired entries are invisible at once and removed by `sweep()`, which `start()` runs
 * periodically so that keys nobody reads again do not pile up. Every method runs
 * synchronously inside its promise, so each is atomic.
 */
export class MemoryKv implements Kv {
  readonly #entries = new Map<string, Entry>();
  /** Sliding logs, by key. */
  readonly #logs = new Map<string, SlidingLog>();
  /** Who listens on each channel (`listen`); a signal reaches each on a later turn, as from Redis. */
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #clock: Clock;
  readonly #sweepIntervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: MemoryKvOptions) {
    this.#clock = options.clock;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    this.#assertOpen();
    assertTtlMs(ttlMs);
    const entry = this.#live(key);
    if (entry === undefined) {
      this.#entries.set(key, { value: '1', expiresAt: this.#clock.now() + ttlMs });
      return 1;
    }
    const current = INTEGER.test(entry.value) ? Number(entry.value) : Number.NaN;
    if (!Number.isSafeInteger(current + 1)) {
      throw new Error(`kv: value at "${key}" is not an integer or out of range`);
    }
    entry.value = String(current + 1);
    return current + 1;
  }

  async get(key: string): Promise<string | null> {
    this.#assertOpen();
    return this.#live(key)?.value ?? null;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertTtlMs(ttlMs);
    const entry = this.#live(key);
    if (entry !== undefined) return entry.value;
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
    return null;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#assertOpen();
    assertTtlMs(ttlMs);
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.#assertOpen();
    this.#entries.delete(key);
  }

  async deleteIfEquals(key: string, value: string): Promise<boolean> {
    this.#assertOpen();
    if (this.#live(key)?.value !== value) return false;
    this.#entries.delete(key);
    return true;
  }

  async compareAndSet(key: string, expected: string | null, next: string | null, ttlMs: number): Promise<boolean> {
    this.#assertOpen();
    assertTtlMs(ttlMs);
    if ((this.#live(key)?.value ?? null) !== expected) return false;
    if (next === null) this.#entries.delete(key);
    else this.#entries.set(key, { value: next, expiresAt: this.#clock.now() + ttlMs });
    return true;
  }

  async logAdmit(key: string, member: string, limit: number, windowMs: number, now: number): Promise<number> {
    this.#assertOpen();
    assertLog(limit, windowMs);
    return this.#admit(key, member, limit, windowMs, now);
  }

  async logAdmitLimitedBy(
    key: string,
    member: string,
    limitKey: string,
    defaultLimit: number,
    windowMs: number,
    now: number,
  ): Promise<{ wait: number; limitValue: string | null }> {
    this.#assertOpen();
    assertLog(defaultLimit, windowMs);
    const limitValue = this.#live(limitKey)?.value ?? null;
    return { wait: this.#admit(key, member, limitIn(limitValue) ?? defaultLimit, windowMs, now), limitValue };
  }

  async logRemove(key: string, member: string, signal?: string): Promise<void> {
    this.#assertOpen();
    this.#logs.get(key)?.entries.delete(member);
    if (signal === undefined) return;
    for (const onSignal of this.#listeners.get(signal) ?? []) queueMicrotask(onSignal);
  }

  async listen(channel: string, onSignal: () => void): Promise<() => void> {
    this.#assertOpen();
    // A wrapper per call: the same function listening twice is two listeners, each ended alone.
    const listener = () => onSignal();
    const set = this.#listeners.get(channel) ?? new Set();
    set.add(listener);
    this.#listeners.set(channel, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(channel) === set) this.#listeners.delete(channel);
    };
  }

  async logCount(key: string, windowMs: number, now: number): Promise<number> {
    this.#assertOpen();
    const log = this.#logs.get(key);
    return log === undefined ? 0 : countInWindow(log.entries, now - windowMs).n;
  }

  async close(): Promise<void> {
    this.stop();
    this.#logs.clear();
    this.#listeners.clear();
    this.#entries.clear();
    this.#closed = true;
  }

  /** Starts the periodic sweep; the timer does not keep the process alive. Idempotent. */
  start(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setInterval(() => this.sweep(), this.#sweepIntervalMs);
    this.#timer.unref();
  }

  /** Stops the periodic sweep. Idempotent. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Removes every expired entry now; returns how many were removed. */
  sweep(): number {
    const now = this.#clock.now();
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        removed++;
      }
    }
    for (const [key, log] of this.#logs) if (log.entries.size === 0) this.#logs.delete(key);
    return removed;
  }

  /** Entries held, expired-but-unswept ones included (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** `logAdmit`'s admit, its arguments checked. */
  #admit(key: string, member: string, limit: number, windowMs: number, now: number): number {
    // As RedisKv's script: pruned a window late, counted in the caller's window (and after it).
    const log = this.#prunedLog(key, now - 2 * windowMs);
    // As RedisKv's script: entries stamped over a minute (or the window) ahead, before a clock stepped back, count as made now.
    const beyond = now + Math.max(windowMs, STEPPED_BACK_MS);
    if (log.last > beyond) madeNow(log, beyond, now);
    // Fewer entries than the limit are under it whatever their times: no count (the common case,
    // a flight with no adaptive limit in force, whose limit is unbounded). Per send, a count of
    // every send in flight had been a copy and a filter of the whole log (issue 46).
    const counted = log.entries.size < limit ? undefined : countInWindow(log.entries, now - windowMs);
    if (counted !== undefined && counted.n >= limit) return Math.max(1, counted.oldest + windowMs - now);
    // Taken again: to the end, where its new time belongs.
    log.entries.delete(member);
    log.entries.set(member, now);
    // A time before the last one (a clock that stepped back): the log is out of order until it has been pruned whole.
    if (now < log.last) log.ordered = false;
    log.last = Math.max(log.last, now);
    this.#logs.set(key, log);
    return 0;
  }

  /**
   * The log at `key` without its entries at or before `after`. In time order (insertion order,
   * the common case) it is read oldest first up to the first entry kept: O(what it removes), not
   * O(the log). Out of order (an entry added after a clock stepped back) it is read whole, as
   * Redis prunes by score, until what is left is in order again.
   */
  #prunedLog(key: string, after: number): SlidingLog {
    const log = this.#logs.get(key);
    if (log === undefined) return { entries: new Map(), last: Number.NEGATIVE_INFINITY, ordered: true };
    if (log.ordered) {
      for (const [member, at] of log.entries) {
        if (at > after) break;
        log.entries.delete(member);
      }
      return log;
    }
    let previous = Number.NEGATIVE_INFINITY;
    let ordered = true;
    for (const [member, at] of log.entries) {
      if (at <= after) {
        log.entries.delete(member);
        continue;
      }
      if (at < previous) ordered = false;
      previous = at;
    }
    log.ordered = ordered;
    return log;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('kv: closed');
  }
}

/** A sliding log: member → the time it was added, in insertion order; in time order too unless a clock stepped back. */
interface SlidingLog {
  entries: Map<string, number>;
  /** The latest time added. */
  last: number;
  /** Whether the entries' times grow in insertion order (the prune may stop at the first one kept). */
  ordered: boolean;
}

/**
 * Stamps `now` on the entries of `log` after `beyond`: made before the clock stepped back, they
 * would have held the window for the length of the step. Their places in the log stay, so it is
 * out of order (the next prunes read it whole until it is in order again).
 */
function madeNow(log: SlidingLog, beyond: number, now: number): void {
  let last = Number.NEGATIVE_INFINITY;
  for (const [member, at] of log.entries) {
    const stamped = at > beyond ? now : at;
    if (stamped !== at) log.entries.set(member, stamped);
    last = Math.max(last, stamped);
  }
  log.last = last;
  log.ordered = false;
}

/** How many of `log`'s entries are after `after`, and the oldest of them (Infinity: none). */
function countInWindow(log: Map<string, number>, after: number): { n: number; oldest: number } {
  let n = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const at of log.values()) {
    if (at <= after) continue;
    n++;
    if (at < oldest) oldest = at;
  }
  return { n, oldest };
}

/** The `limit` of a JSON object's text when it is a positive safe integer, as RedisKv's script reads it; else undefined. */
function limitIn(text: string | null): number | undefined {
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // a bad value never fails the admit
  }
  const limit: unknown = typeof value === 'object' && value !== null ? (value as { limit?: unknown }).limit : undefined;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}
