import { PlanLimitError } from '@wirehook/core/without-schemas';
import type { UsageCounter } from '../ports/message-port.ts';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { int } from './row.ts';

// A send's usage counters, tallied per group commit (issue 46). Each send had read its
// counters, cleared the expired rows and bumped its counter: three statements a message, where
// the sends of one batch nearly all touch the same few keys (an org's month). Now a batch reads
// each key once and keeps it in a tally that each send it takes moves as its statements had
// moved the row (its own expired rows reset, then its increments), so a later send
// sees exactly what it saw before — a limit holds within the batch, and a key expiring between
// two sends of one batch resets between them. Just before the batch commits, in its
// transaction, the long-expired rows are cleared once (CLEAR_LAG_MS) and each key the batch
// changed is written once with its final value: a crash loses or doubles nothing. The values are
// written whole, not added: the batch holds the write lock from its first read (BEGIN
// IMMEDIATE), even with several processes on one file. (The MongoDB store keeps its own.)

const READ = 'SELECT value, expires_at FROM usage_counters WHERE key = ?';
// Counter keys carry their period, so an expired row is garbage, cleared by a batch that took a
// send — CLEAR_LAG_MS after its expiry by that send's time: one send stamped by a clock that
// jumped ahead (a month) would otherwise clear every organization's counters of the period,
// read again once the clock is right (its month's usage from 1, a second allowance).
const CLEAR_EXPIRED = 'DELETE FROM usage_counters WHERE expires_at <= ?';
/** How long an expired counter is kept: longer than any jump a clock is corrected from, and than a period. */
export const CLEAR_LAG_MS = 40 * 24 * 3_600_000;
const DELETE_KEY = 'DELETE FROM usage_counters WHERE key = ?';
// Only the value, as a rule: an expiry comes with its key's period, and setting it unchanged would
// still rewrite its index entry.
const SET_VALUE = 'UPDATE usage_counters SET value = ? WHERE key = ? RETURNING expires_at';
const INSERT = 'INSERT INTO usage_counters (key, value, expires_at) VALUES (?, ?, ?)';
const SET_EXPIRY = 'UPDATE usage_counters SET expires_at = ? WHERE key = ?';

/** A key's row as the batch's sends so far have left it (absent: `row` undefined). */
interface TalliedKey {
  row: { value: number; expiresAt: number } | undefined;
  /** Whether a send changed it (the row to write at the batch's end). */
  changed: boolean;
}

/** What a send read: each counter's value as it saw it, and the rows it read from the store itself. */
export interface CounterReads {
  values: Record<string, number>;
  /** Keys no earlier send of the batch had touched, as the store holds them. */
  fromStore: Map<string, TalliedKey['row']>;
}

class UsageTally implements BatchTally {
  readonly keys = new Map<string, TalliedKey>();
  /** The latest time of a send the batch took: rows expired by then are cleared. */
  clearBefore: number | undefined;
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  /** A send taken at `at`: its own counters' rows expired by then reset (read as 0, as a send reads them), then its increments. */
  take(at: number, counters: readonly UsageCounter[]): void {
    this.clearBefore = Math.max(this.clearBefore ?? at, at);
    for (const { key } of counters) {
      const tallied = this.keys.get(key)!;
      if (tallied.row === undefined || tallied.row.expiresAt > at) continue;
      tallied.row = undefined;
      tallied.changed = true;
    }
    for (const counter of counters) {
      if (!counter.increment) continue;
      const tallied = this.keys.get(counter.key)!;
      tallied.row = { value: (tallied.row?.value ?? 0) + 1, expiresAt: counter.expiresAt };
      tallied.changed = true;
    }
  }

  flush(): void {
    if (this.clearBefore !== undefined) this.#conn.statement(CLEAR_EXPIRED).run(this.clearBefore - CLEAR_LAG_MS);
    for (const [key, { row, changed }] of this.keys) {
      if (!changed) continue;
      if (row === undefined) {
        this.#conn.statement(DELETE_KEY).run(key);
        continue;
      }
      const stored = this.#conn.statement(SET_VALUE).get(row.value, key);
      if (stored === undefined) this.#conn.statement(INSERT).run(key, row.value, row.expiresAt);
      else if (int(stored, 'expires_at') !== row.expiresAt) this.#conn.statement(SET_EXPIRY).run(row.expiresAt, key);
    }
  }
}

const openUsageTally = (conn: SqliteConnection): UsageTally => new UsageTally(conn);

/** Inside a batched write: each counter's value at `at` as this send sees it (its row as the batch's earlier sends left it). */
export function readCounters(conn: SqliteConnection, counters: readonly UsageCounter[], at: number): CounterReads {
  const tally = conn.peek(openUsageTally);
  const values: Record<string, number> = {};
  const fromStore: CounterReads['fromStore'] = new Map();
  for (const { key } of counters) {
    let row: TalliedKey['row'];
    const tallied = tally?.keys.get(key);
    if (tallied !== undefined) row = tallied.row;
    else {
      const stored = conn.statement(READ).get(key);
      row = stored === undefined ? undefined : { value: int(stored, 'value'), expiresAt: int(stored, 'expires_at') };
      // Cleared by the batch's end (a later send stamped earlier: a clock stepping back).
      if (row !== undefined && tally?.clearBefore !== undefined && row.expiresAt <= tally.clearBefore - CLEAR_LAG_MS) row = undefined;
      fromStore.set(key, row);
    }
    // An expired row reads as 0 (a send that is taken clears it).
    values[key] = row !== undefined && row.expiresAt > at ? row.value : 0;
  }
  return { values, fromStore };
}

/** @throws PlanLimitError when an incremented counter is already at its limit. */
export function checkLimits(counters: readonly UsageCounter[], values: Record<string, number>): void {
  for (const counter of counters) {
    if (!counter.increment || counter.limit === null || (values[counter.key] ?? 0) < counter.limit) continue;
    throw new PlanLimitError(counter.limitMessage ?? `usage counter ${counter.key} is at its limit of ${counter.limit}`);
  }
}

/**
 * Inside a batched write, for a send taken at `at`: adds its increments to the batch's tally,
 * written before the batch commits. @returns each counter's value after the send.
 */
export function countSend(conn: SqliteConnection, counters: readonly UsageCounter[], at: number, reads: CounterReads): Record<string, number> {
  conn.stage(openUsageTally, (tally) => {
    for (const [key, row] of reads.fromStore) if (!tally.keys.has(key)) tally.keys.set(key, { row, changed: false });
    tally.take(at, counters);
  });
  const after = { ...reads.values };
  for (const counter of counters) if (counter.increment) after[counter.key] = (after[counter.key] ?? 0) + 1;
  return after;
}
