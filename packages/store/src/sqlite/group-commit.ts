import { closeSync, fsync, openSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

interface QueuedWrite {
  fn: () => unknown;
  /** Settle only once the commit is on disk; false: as soon as it is committed. */
  durable: boolean;
  /** Many rows (GroupCommit.run's `bulky`): may wait for the next batch once this one has run BULKY_SHARE_MS. */
  bulky: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** A batch's writes run: those that ran with each one's outcome, and the tallies they merged into (the bulky ones left: #leftOver). */
interface BatchRun {
  ran: QueuedWrite[];
  outcomes: Outcome[];
  tallies: Map<unknown, BatchTally>;
}

/**
 * What the writes of one batch add up, written once at the batch's end (GroupCommit.stage):
 * e.g. 64 completions' rollup increments as one upsert per endpoint and grain.
 */
export interface BatchTally {
  /** Writes what was merged into it; runs inside the batch's transaction, before `COMMIT`. */
  flush(): void;
  /** Told once the batch's `COMMIT` succeeded (never when it rolled back): what it wrote, or kept back, now stands. */
  committed?(): void;
}

/** A write's merge into the tally of `kind`, applied once the write has run without throwing. */
interface StagedMerge {
  kind: unknown;
  open: () => BatchTally;
  merge: (tally: BatchTally) => void;
}

/**
 * SQLite's primary result code for a lock another connection holds. node:sqlite's `errcode` is the
 * extended code, so the busy family is told by its low byte, as SQLite's own retry loop tells it:
 * SQLITE_BUSY_RECOVERY (261: another connection rebuilding the WAL index, after a process died
 * between writing its two copies) and SQLITE_BUSY_SNAPSHOT (517: only with a read still open on this
 * connection, so its retries end at the busy timeout) are busy; SQLITE_LOCKED's (6, 262) are not.
 */
const SQLITE_BUSY = 5;
const isBusy = (err: unknown): boolean => (((err as { errcode?: number }).errcode ?? 0) & 0xff) === SQLITE_BUSY;
/** How often a batch tries again for the write lock another connection holds. */
const LOCK_RETRY_MS = 1;
/**
 * How long a batch runs before the bulky writes left wait for the next batch, in ms of the writer
 * thread's CPU: a moment's 64 fan-out messages (1,344 rows) ran 25–55 ms in one transaction, and
 * every claim and completion queued behind them waited for all of it, the sends idle meanwhile —
 * while intake ran, fan-out delivered at about half its rate after (docs/benchmarks.md, sixty-first
 * session; shares of 2 and 4 ms of the wall clock measured alike there, 8 ms kept most of the wait).
 * The thread's CPU, not the wall clock: a thread descheduled mid-batch (two cores, five busy threads)
 * would end its batch after a create or two, each extra commit writing the same index pages to the
 * WAL again. Linux counts a thread's CPU at scheduler ticks, so the share is 4 ms to a tick more.
 */
export const BULKY_SHARE_MS = 4;
/**
 * A batch that has run this many shares of the wall clock leaves its bulky writes for the next
 * whatever its CPU says: time blocked reading pages from disk is no CPU, and would let one batch
 * run every create queued, as before the share.
 */
const WALL_SHARES = 4;

/** What a GroupCommit measures a batch's share of bulky writes with (a test's own clocks). */
export interface GroupCommitTiming {
  bulkyShareMs: number;
  /** The thread's CPU time, in ms (threadCpuMs). */
  cpuNow: () => number;
  /** A monotonic wall clock, in ms (performance.now). */
  wallNow: () => number;
}

/** The clocks GroupCommit measures a share with outside tests. */
export function shareTiming(bulkyShareMs = BULKY_SHARE_MS): GroupCommitTiming {
  return { bulkyShareMs, cpuNow: threadCpuMs, wallNow: () => performance.now() };
}

/** This thread's CPU time (user and system), in ms: what BULKY_SHARE_MS is measured in. */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1_000;
}

/**
 * Group commit for one SQLite connection in WAL mode. Writes queued during one turn of the
 * event loop run in one `BEGIN IMMEDIATE … COMMIT` (a write that throws is undone and
 * rejected alone: #commit says how). The commit itself does not fsync
 * (`synchronous = NORMAL` for that transaction only); the WAL file is fsynced afterwards on
 * libuv's thread pool, and the writes' promises settle only once it is on disk. So a
 * resolved write is as durable as with `synchronous = FULL`, but the event loop never
 * waits for the disk, and while one fsync runs the next batch gathers: one fsync serves
 * every write of a few milliseconds under load instead of one fsync per write.
 *
 * Committed data is visible to reads on this connection before its fsync completes;
 * whoever acts on a write waits for its promise, which means after the fsync.
 *
 * When another connection holds the write lock (cluster mode: several processes on one
 * file), the batch tries again a millisecond later instead of sleeping in SQLite's busy
 * handler, whose waits grow to 100 ms and stop the thread: meanwhile the thread serves
 * reads and more writes join the batch. After `busyTimeoutMs` of trying, the batch fails
 * with SQLite's "database is locked", as a blocking wait would have.
 */
export class GroupCommit {
  readonly #db: DatabaseSync;
  /** The WAL file to fsync; undefined for a database without one (`:memory:`). */
  readonly #walFile: string | undefined;
  #walFd: number | undefined;
  #queued: QueuedWrite[] = [];
  #flushScheduled = false;
  /** Settlers of committed batches waiting for the next fsync. */
  #awaitingSync: ((err: Error | null) => void)[] = [];
  #syncing = false;
  #closed = false;
  readonly #busyTimeoutMs: number;
  /** Since when the queued batch has found the write lock taken. */
  #lockedSince: number | undefined;
  /** While a batch runs: its tallies by kind; undefined between batches. */
  #tallies: Map<unknown, BatchTally> | undefined;
  /** The merges of the write now running, applied if it succeeds. */
  #staged: StagedMerge[] = [];
  /** Whether the next batch runs a savepoint a write: the last one was rolled back (#commit). */
  #savepoints = false;
  /** `SELECT total_changes()`, prepared on first use. */
  #changes: StatementSync | undefined;
  readonly #timing: GroupCommitTiming;
  /** The bulky writes the last batch left for the next (#run), until flush takes them, whether the batch committed or failed. */
  #leftOver: QueuedWrite[] = [];

  constructor(db: DatabaseSync, walFile: string | undefined, busyTimeoutMs: number, timing: GroupCommitTiming = shareTiming()) {
    this.#db = db;
    this.#walFile = walFile;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#timing = timing;
  }

  /**
   * Queues `fn` for the next group commit; @returns its result once committed and on disk
   * — or, with `durable: false`, once committed: for writes whose loss in a crash costs
   * nothing but a repeat (a delivery's lease: lost, the delivery is claimed again). They
   * still reach the disk with the next fsync. `fn` must not begin a transaction, and must change
   * the database by INSERT, UPDATE and DELETE statements run to their end only (no schema change,
   * no PRAGMA, no statement left half-iterated): SQLite's count of changed rows tells whether one
   * that throws changed anything (#commit). It may run twice; what it returns the first time is dropped.
   *
   * `bulky`: a write of many rows (a message with its deliveries). Once a batch has run its writes
   * (light ones too) for `BULKY_SHARE_MS` of the thread's CPU, or WALL_SHARES times that of the wall
   * clock, the bulky ones not yet begun wait for the next batch (in their order, first in it),
   * and the lighter writes queued behind them run in this one; the thread takes in what arrived
   * meanwhile before that next batch. So a light write may commit before a bulky one queued
   * earlier: a write is bulky only when no write queued after it can depend on it (nothing can
   * name a message's rows before its create answers).
   */
  run<T>(fn: () => T, { durable = true, bulky = false }: { durable?: boolean; bulky?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The queue holds writes of every T; each write settles with its own fn's value.
      this.#queued.push({ fn, durable, bulky, resolve: resolve as (value: unknown) => void, reject });
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      // After this turn's I/O callbacks: requests that arrived together commit together.
      setImmediate(() => this.flush());
    });
  }

  /**
   * Commits the queued writes now, but for the bulky ones past the batch's share (GroupCommit.run's `bulky`:
   * first in the next batch; the promises still settle after the fsync) — or, when another
   * connection holds the write lock, a moment later. `wait`: block for the lock instead, and
   * commit every write (closing).
   */
  flush({ wait = false }: { wait?: boolean } = {}): void {
    this.#flushScheduled = false;
    if (this.#queued.length === 0) return;
    let run: BatchRun | undefined;
    let batch: QueuedWrite[] = [];
    const onDisk = this.#walFile !== undefined;
    try {
      // Our own fsync makes the commit durable; any other transaction keeps FULL. (Not
      // inside the transaction: SQLite refuses to change it there.)
      if (onDisk) this.#db.exec('PRAGMA synchronous = NORMAL');
      if (!this.#begin(wait)) return;
      batch = this.#queued;
      this.#queued = [];
      // Closing: everything now, no share left for a next batch.
      run = this.#commit(batch, this.#savepoints, wait ? Number.POSITIVE_INFINITY : this.#timing.bulkyShareMs);
      this.#savepoints = run === undefined;
    } catch (err) {
      this.#savepoints = false;
      if (batch.length === 0) {
        batch = this.#queued;
        this.#queued = [];
      }
      // BEGIN or COMMIT failed (busy, disk full, closed): nothing of the batch was written. The
      // writes left for the next batch did not run: they go first in it, to fail there (or not) on their own.
      const notRun = new Set(this.#leftOver.splice(0));
      for (const write of batch) if (!notRun.has(write)) write.reject(err);
      if (notRun.size > 0) this.#requeue([...notRun]);
      return;
    } finally {
      if (onDisk && this.#db.isOpen) this.#db.exec('PRAGMA synchronous = FULL');
    }
    if (run === undefined) {
      // Rolled back: again, a savepoint a write, first in the queue, taking the lock as any batch does.
      this.#leftOver = [];
      this.#queued = [...batch, ...this.#queued];
      this.flush({ wait });
      return;
    }
    const left = this.#leftOver.splice(0);
    if (left.length > 0) this.#requeue(left);
    const { ran, outcomes } = run;
    const settle = (write: QueuedWrite, outcome: Outcome, err: Error | null) => {
      if (err) write.reject(err);
      else if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.err);
    };
    const durable: number[] = [];
    ran.forEach((write, i) => (write.durable ? durable.push(i) : settle(write, outcomes[i]!, null)));
    if (durable.length === 0) return;
    this.#afterSync((err) => {
      for (const i of durable) settle(ran[i]!, outcomes[i]!, err);
    });
  }

  /** `writes`, which the last batch left, first in the next: after the calls that arrive meanwhile have joined the queue. */
  #requeue(writes: QueuedWrite[]): void {
    this.#queued = [...writes, ...this.#queued];
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * Inside a batched write: `merge` is applied to the batch's tally of `kind` (opened by `open`
   * on first use) once the write's savepoint is released — a write that throws adds nothing —
   * and each tally is flushed once, after the batch's last write, in the same transaction: a
   * crash loses or doubles nothing. Outside a batch but inside a transaction (a tally's flush
   * staging more): opened, merged and flushed now, in that transaction.
   * @throws Error when no transaction is open: the tally's rows would each commit alone.
   */
  stage<T extends BatchTally>(kind: unknown, open: () => T, merge: (tally: T) => void): void {
    if (this.#tallies !== undefined) {
      this.#staged.push({ kind, open, merge: merge as (tally: BatchTally) => void });
      return;
    }
    if (!this.#db.isTransaction) throw new Error('GroupCommit.stage: no transaction is open (stage inside a batched write)');
    const tally = open();
    // Nothing here tells it of the commit: a tally that waits for one is staged in batches only.
    if (tally.committed !== undefined) throw new Error('GroupCommit.stage: a tally told of its commit is staged inside a batched write');
    merge(tally);
    tally.flush();
  }

  /**
   * Inside a batched write: the batch's tally of `kind` as the writes before this one left it
   * (their merges applied; this write's own are applied once it returns), or undefined when none
   * of them staged one — for a write that must see what the batch has tallied but not yet written.
   * Read it only: a write changes a tally through `stage`, which drops what a failed write merged.
   */
  peek<T extends BatchTally>(kind: unknown): T | undefined {
    return this.#tallies?.get(kind) as T | undefined;
  }

  /** Merges a write's `staged` merges into the running batch's tallies, opening each kind's on first use. */
  #apply(staged: StagedMerge[], tallies: Map<unknown, BatchTally>): void {
    for (const { kind, open, merge } of staged) {
      let tally = tallies.get(kind);
      if (tally === undefined) tallies.set(kind, (tally = open()));
      merge(tally);
    }
  }

  /** Commits what is queued and closes the WAL file descriptor (before the database closes). */
  close(): void {
    if (this.#db.isOpen) this.flush({ wait: true });
    this.#closed = true;
    if (!this.#syncing) this.#closeWal();
  }

  #closeWal(): void {
    if (this.#walFd === undefined) return;
    closeSync(this.#walFd);
    this.#walFd = undefined;
  }

  /**
   * `BEGIN IMMEDIATE`, without SQLite's busy wait unless `wait`. @returns false when the
   * lock is taken (a retry is scheduled). @throws SQLite's error otherwise, or once the
   * lock has been taken for longer than the busy timeout.
   */
  #begin(wait: boolean): boolean {
    if (wait) {
      this.#db.exec('BEGIN IMMEDIATE');
      return true;
    }
    this.#db.exec('PRAGMA busy_timeout = 0');
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      this.#lockedSince = undefined;
      return true;
    } catch (err) {
      // A duration: the monotonic clock (a wall clock stepping forward ended the wait at once, failing the batch).
      const now = performance.now();
      this.#lockedSince ??= now;
      if (!isBusy(err) || now - this.#lockedSince >= this.#busyTimeoutMs) {
        this.#lockedSince = undefined;
        throw err;
      }
      this.#flushScheduled = true;
      setTimeout(() => this.flush(), LOCK_RETRY_MS);
      return false;
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
    }
  }

  /**
   * Runs the batch inside the transaction #begin opened, and commits. Without `savepoints`, no
   * savepoint around each write: SQLite copies every page a savepoint first changes (its
   * sub-journal), about a tenth of the store's CPU a delivery (docs/benchmarks.md, eleventh
   * session). A write that throws having changed no row fails alone: a plan's limit reached, a
   * row not found, a failed statement (SQLite undoes a failed statement by itself). One that
   * throws after changing rows cannot be undone alone: the transaction is rolled back and
   * @returns undefined, for flush to run the batch again with `savepoints`, each write undone
   * alone if it throws, as every batch once ran. Its writes run twice then, which they may: each
   * is a function of the database alone, and what it returned the first time is dropped.
   */
  #commit(batch: QueuedWrite[], savepoints: boolean, bulkyShareMs: number): BatchRun | undefined {
    let run: BatchRun | undefined;
    try {
      run = this.#run(batch, savepoints, bulkyShareMs);
      this.#db.exec(run === undefined ? 'ROLLBACK' : 'COMMIT');
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw err;
    }
    if (run === undefined) return undefined;
    // Committed: the batch's writes stand whatever a tally does now.
    for (const tally of run.tallies.values()) {
      try {
        tally.committed?.();
      } catch (err) {
        process.emitWarning(`wirehook: after a commit: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return run;
  }

  /**
   * Runs each write of the batch, then flushes its tallies (not committing). `savepoints`: each
   * write in one, so one that throws is undone alone. A bulky write found after `bulkyShareMs`
   * of the batch is left for the next (#leftOver). @returns undefined, without savepoints,
   * when a write threw after changing rows (the batch must be undone).
   */
  #run(batch: QueuedWrite[], savepoints: boolean, bulkyShareMs: number): BatchRun | undefined {
    const ran: QueuedWrite[] = [];
    const outcomes: Outcome[] = [];
    this.#leftOver = [];
    const tallies = new Map<unknown, BatchTally>();
    const { cpuNow, wallNow } = this.#timing;
    const wallAt = wallNow();
    const cpuAt = cpuNow();
    // The CPU is read only once the wall clock has passed the share (the CPU cannot run ahead of it),
    // and not again once spent.
    const spent = () => {
      const wall = wallNow() - wallAt;
      return wall >= WALL_SHARES * bulkyShareMs || (wall >= bulkyShareMs && cpuNow() - cpuAt >= bulkyShareMs);
    };
    let shareSpent = false;
    this.#tallies = tallies;
    try {
      for (const write of batch) {
        // Never the batch's first: every batch moves the queue on.
        if (write.bulky && ran.length > 0 && (shareSpent ||= spent())) {
          this.#leftOver.push(write);
          continue;
        }
        ran.push(write);
        this.#staged = [];
        const changesBefore = savepoints ? 0 : this.#totalChanges();
        if (savepoints) this.#db.exec('SAVEPOINT group_write');
        let value: unknown;
        try {
          value = write.fn();
          if (savepoints) this.#db.exec('RELEASE group_write');
        } catch (err) {
          // SQLite ended the whole transaction (a full disk, an I/O error): the batch fails with
          // this error, not with the "no such savepoint" that rolling back to it would throw.
          if (!this.#db.isTransaction) throw err;
          if (savepoints) {
            this.#db.exec('ROLLBACK TO group_write');
            this.#db.exec('RELEASE group_write');
          } else if (this.#totalChanges() !== changesBefore) {
            return undefined;
          }
          outcomes.push({ ok: false, err });
          continue;
        }
        outcomes.push({ ok: true, value });
        // Outside the write's try: a merge that throws fails the whole batch with its own error
        // (the write's changes stand, and the tallies may hold part of its merges).
        if (this.#staged.length > 0) this.#apply(this.#staged, tallies);
      }
      // A tally that fails to write fails the whole batch: nothing of it is committed. A flush
      // that stages more writes it at once, in this transaction (stage outside a batch).
      this.#tallies = undefined;
      for (const tally of tallies.values()) tally.flush();
      return { ran, outcomes, tallies };
    } finally {
      this.#tallies = undefined;
      this.#staged = [];
    }
  }

  /** Rows inserted, updated or deleted on this connection so far, triggers' included (SQLite's total_changes()). */
  #totalChanges(): number {
    this.#changes ??= this.#db.prepare('SELECT total_changes() AS n');
    return Number(this.#changes.get()!['n']);
  }

  #afterSync(settle: (err: Error | null) => void): void {
    if (this.#walFile === undefined) {
      settle(null);
      return;
    }
    this.#awaitingSync.push(settle);
    if (!this.#syncing) this.#sync();
  }

  #sync(): void {
    const settlers = this.#awaitingSync;
    this.#awaitingSync = [];
    let fd: number;
    try {
      // The WAL exists once a write committed; it lives as long as this connection.
      fd = this.#walFd ??= openSync(this.#walFile!, 'r');
    } catch (err) {
      for (const settle of settlers) settle(err as Error);
      return;
    }
    this.#syncing = true;
    fsync(fd, (err) => {
      this.#syncing = false;
      for (const settle of settlers) settle(err);
      if (this.#awaitingSync.length > 0) this.#sync();
      else if (this.#closed) this.#closeWal();
    });
  }
}
