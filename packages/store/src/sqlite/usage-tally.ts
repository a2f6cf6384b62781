import { PlanLimitError } from '@wirehook/core';
import type { UsageCounter } from '../ports/message-port.ts';
import type { SqliteConnection } from './connection.ts';
import type { BatchTally } from './group-commit.ts';
import { int } from './row.ts';

// A send's usage counters, tallied per group commit (issue 46). Each send had read its
// counters, cleared the expired rows and bumped its counter: three statements a message, where
// the sends of one batch nearly all touch the same few keys (an org's month). Now a batch reads
// each key once (a send after the first sees the first's read plus what the batch has added),
// clears the expired rows once and writes each key once, just before it commits — in the same
// transaction, so a crash loses or doubles nothing, and a send refused at its plan's limit
// still sees every send taken before it in the batch. (The MongoDB store keeps its own.)

const READ = 'SELECT value FROM usage_counters WHERE key = ? AND expires_at > ?';
// Counter keys carry their period, so an expired row is garbage, cleared by a batch that took a send.
const CLEAR_EXPIRED = 'DELETE FROM usage_counters WHERE expires_at <= ?';
// Only the value, as a rule: an expiry comes with its key's period, and setting it unchanged would
// still rewrite its index entry.
const ADD = 'UPDATE usage_counters SET value = value + ? WHERE key = ? RETURNING expires_at';
const INSERT = 'INSERT INTO usage_counters (key, value, expires_at) VALUES (?, ?, ?)';
const SET_EXPIRY = 'UPDATE usage_counters SET expires_at = ? WHERE key = ?';

/** A key as the batch sees it: its value in the store when first read, and what the batch adds. */
interface TalliedKey {
  base: number;
  added: number;
  expiresAt: number;
}

/** What a send read: each counter's value as it saw it, and the keys it read from the store itself. */
export interface CounterReads {
  values: Record<string, number>;
  /** Keys read from the store (none of the batch's sends before had touched them): their base. */
  fromStore: Map<string, number>;
}

class UsageTally implements BatchTally {
  readonly keys = new Map<string, TalliedKey>();
  /** The latest send the batch took: rows expired by then are cleared. */
  clearBefore: number | undefined;
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  flush(): void {
    if (this.clearBefore !== undefined) this.#conn.statement(CLEAR_EXPIRED).run(this.clearBefore);
    for (const [key, { added, expiresAt }] of this.keys) {
      if (added === 0) continue;
      const row = this.#conn.statement(ADD).get(added, key);
      if (row === undefined) this.#conn.statement(INSERT).run(key, added, expiresAt);
      else if (int(row, 'expires_at') !== expiresAt) this.#conn.statement(SET_EXPIRY).run(expiresAt, key);
    }
  }
}

const openUsageTally = (conn: SqliteConnection): UsageTally => new UsageTally(conn);

/** Inside a batched write: each counter's value at `at` as this send sees it (the store's, plus the batch's earlier sends). */
export function readCounters(conn: SqliteConnection, counters: readonly UsageCounter[], at: number): CounterReads {
  const tally = conn.peek(openUsageTally);
  const values: Record<string, number> = {};
  const fromStore = new Map<string, number>();
  for (const { key } of counters) {
    const tallied = tally?.keys.get(key);
    if (tallied !== undefined) {
      values[key] = tallied.base + tallied.added;
      continue;
    }
    const row = conn.statement(READ).get(key, at);
    values[key] = row === undefined ? 0 : int(row, 'value');
    fromStore.set(key, values[key]);
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
    tally.clearBefore = Math.max(tally.clearBefore ?? at, at);
    for (const [key, base] of reads.fromStore) if (!tally.keys.has(key)) tally.keys.set(key, { base, added: 0, expiresAt: 0 });
    for (const counter of counters) {
      if (!counter.increment) continue;
      const tallied = tally.keys.get(counter.key)!;
      tallied.added += 1;
      tallied.expiresAt = counter.expiresAt;
    }
  });
  const after = { ...reads.values };
  for (const counter of counters) if (counter.increment) after[counter.key] = (after[counter.key] ?? 0) + 1;
  return after;
}
