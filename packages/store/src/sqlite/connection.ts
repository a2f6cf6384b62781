import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { GroupCommit, shareTiming, type BatchTally } from './group-commit.ts';

/** How long a write waits for another connection's lock (the admin CLI vs the server; cluster mode's processes). */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** One SQLite connection with its prepared statements, shared by the repos of a store. */
export class SqliteConnection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #groupCommit: GroupCommit;
  readonly #beforeClose: (() => void)[] = [];
  #closing = false;

  /** `walFile`: the database's WAL file, fsynced by group commits; none for `:memory:`. `bulkyShareMs`: see GroupCommit.run. */
  constructor(db: DatabaseSync, walFile?: string, bulkyShareMs?: number) {
    this.db = db;
    this.#groupCommit = new GroupCommit(db, walFile, SQLITE_BUSY_TIMEOUT_MS, shareTiming(bulkyShareMs));
  }

  /**
   * The prepared statement for `sql`, prepared on first use and reused after. The text is the
   * cache's key: on a hot path pass a constant (a literal, or a template built once at module
   * level) — text built at each call is hashed again at each call (the store bench measured
   * that at ≈ 2 % of its samples for one statement of a create).
   */
  statement(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
   * check made inside it still holds at the write, whichever process writes next.
   * Rolls back and rethrows when `fn` throws.
   */
  immediate<T>(fn: () => T): T {
    return immediateTransaction(this.db, fn);
  }

  /**
   * Runs the reads of `fn` on one snapshot (a deferred read transaction), so a read of several
   * statements on the reader's connection sees one state; inside a transaction already open
   * (the writer's group commit) it runs as it is.
   */
  snapshot<T>(fn: () => T): T {
    if (this.db.isTransaction) return fn();
    this.db.exec('BEGIN');
    try {
      return fn();
    } finally {
      // Unless SQLite ended it itself (an I/O error): a COMMIT then would throw in place of fn's error.
      if (this.db.isTransaction) this.db.exec('COMMIT');
    }
  }

  /**
   * Runs `fn` in the next group commit (see GroupCommit): with the other writes of this
   * turn of the event loop, in one transaction (one that throws is undone alone); settles once
   * the commit is on disk (`durable: false`: once committed; see GroupCommit.run; `bulky`: may
   * wait for the next batch, lighter writes queued after it going first). `fn` must not begin a
   * transaction itself, and may run twice (GroupCommit.run says what else it must not do).
   */
  batched<T>(fn: () => T, options?: { durable?: boolean; bulky?: boolean }): Promise<T> {
    return this.#groupCommit.run(fn, options);
  }

  /**
   * Inside a batched write: adds to the batch's tally of `kind` (`open`ed on this connection on
   * first use), written once before the batch commits (GroupCommit.stage). `kind` is the
   * tally's opener, so every caller of one kind shares its tally.
   */
  stage<T extends BatchTally>(open: (conn: SqliteConnection) => T, merge: (tally: T) => void): void {
    this.#groupCommit.stage(open, () => open(this), merge);
  }

  /** Inside a batched write: the batch's tally of `open`'s kind so far, if an earlier write staged one (GroupCommit.peek). */
  peek<T extends BatchTally>(open: (conn: SqliteConnection) => T): T | undefined {
    return this.#groupCommit.peek<T>(open);
  }

  /** Runs `fn` when the connection closes, before its last group commit: what it queues then is committed. */
  beforeClose(fn: () => void): void {
    this.#beforeClose.push(fn);
  }

  /** Whether close() has begun: the writes queued before it commit now, with nothing left for later. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Closes the connection, committing queued writes first; a second call does nothing. */
  close(): void {
    this.#closing = true;
    for (const fn of this.#beforeClose.splice(0)) fn();
    this.#groupCommit.close();
    this.#statements.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` on `db`; rolls back when it throws. */
export function immediateTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
