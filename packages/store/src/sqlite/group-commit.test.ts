import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit, threadCpuMs, type BatchTally } from './group-commit.ts';

let dir: string;
let path: string;
let db: DatabaseSync;
let commit: GroupCommit;
/** A second connection: sees only what was committed. */
let reader: DatabaseSync;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wirehook-group-commit-'));
  path = join(dir, 'db.sqlite');
  db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY)');
  commit = new GroupCommit(db, `${path}-wal`, 5_000);
  reader = new DatabaseSync(path);
});

afterEach(() => {
  commit.close();
  db.close();
  reader.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (k: string) => () => db.prepare('INSERT INTO t (k) VALUES (?)').run(k).changes;
const keys = () =>
  reader
    .prepare('SELECT k FROM t ORDER BY k')
    .all()
    .map((r) => r['k']);

/** `db`, but each `BEGIN IMMEDIATE` first asks `refusal` for an error to throw in its place (none: it runs). */
function beginRefused(db: DatabaseSync, refusal: () => { message: string; errcode: number } | undefined): DatabaseSync {
  return new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== 'exec') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: string) => {
        const refused = sql === 'BEGIN IMMEDIATE' ? refusal() : undefined;
        if (refused) throw Object.assign(new Error(refused.message), { errcode: refused.errcode });
        return target.exec(sql);
      };
    },
  });
}

describe('GroupCommit', () => {
  it('a write that ends the whole transaction (a full disk) fails the batch with its own error, not "no such savepoint"', async () => {
    await commit.run(insert('a'));
    // No page more than the file has: the next write that needs one fills the disk.
    const pages = Number(db.prepare('PRAGMA page_count').get()!['page_count']);
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const big = () => db.prepare('INSERT INTO t (k) VALUES (?)').run('x'.repeat(64 * 1024)).changes;
    const results = await Promise.allSettled([commit.run(insert('b')), commit.run(big)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/full/);
    expect(db.isTransaction).toBe(false);
    expect(keys()).toEqual(['a']);
  });

  it('commits the writes of one turn together; a failing write is undone and rejected alone', async () => {
    const results = await Promise.allSettled([commit.run(insert('a')), commit.run(insert('a')), commit.run(insert('b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toMatch(/UNIQUE/);
    expect(keys()).toEqual(['a', 'b']);
  });

  it('runs a batch once when its failing write changed nothing; again, a savepoint a write, when it had changed rows', async () => {
    const calls: string[] = [];
    const write = (k: string, fail?: 'before writing' | 'after writing') => () => {
      calls.push(k);
      if (fail === 'before writing') throw new Error(`${k} refused`);
      const changes = insert(k)();
      if (fail === 'after writing') throw new Error(`${k} failed after writing`);
      return changes;
    };
    const once = await Promise.allSettled([commit.run(write('a')), commit.run(write('b', 'before writing')), commit.run(write('c'))]);
    expect(once.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual(['a', 'b', 'c']);
    calls.length = 0;
    const again = await Promise.allSettled([commit.run(write('d')), commit.run(write('e', 'after writing')), commit.run(write('f'))]);
    expect(again.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((again[1] as PromiseRejectedResult).reason.message).toBe('e failed after writing');
    // Stopped at e (its row cannot be undone alone), then the batch from its start, each write in a savepoint.
    expect(calls).toEqual(['d', 'e', 'd', 'e', 'f']);
    expect(keys()).toEqual(['a', 'c', 'd', 'f']);
  });

  it('runs a rolled-back batch again through the lock’s usual wait: another connection holding it meanwhile stops no thread', async () => {
    // The other connection takes the lock the moment the batch is rolled back, for 30 ms.
    const other = new DatabaseSync(join(dir, 'db.sqlite'));
    let timerRan = false;
    const proxied = new Proxy(db, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (key !== 'exec') return typeof value === 'function' ? value.bind(target) : value;
        return (sql: string) => {
          target.exec(sql);
          if (sql !== 'ROLLBACK') return;
          other.exec('BEGIN IMMEDIATE');
          setTimeout(() => {
            timerRan = true;
            other.exec('COMMIT');
          }, 30);
        };
      },
    });
    const gc = new GroupCommit(proxied as DatabaseSync, undefined, 5_000);
    let runs = 0;
    const failing = () => {
      runs++;
      insert('e')();
      throw new Error('e failed after writing');
    };
    const results = await Promise.allSettled([gc.run(insert('d')), gc.run(failing), gc.run(insert('f'))]);
    other.close();
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toBe(2);
    expect(timerRan).toBe(true);
    expect(keys()).toEqual(['d', 'f']);
  });

  it('settles each write of a batch run again with its second run’s value, and tells its tallies of the commit once', async () => {
    let failures = 0;
    const committed: number[] = [];
    class CountTally implements BatchTally {
      n = 0;
      flush(): void {}
      committed(): void {
        committed.push(this.n);
      }
    }
    const kind = Symbol('count');
    const counting = (k: string) => () => {
      insert(k)();
      commit.stage(
        kind,
        () => new CountTally(),
        (tally) => tally.n++,
      );
      return `${k} after ${failures} failures`;
    };
    const failing = () => {
      failures++;
      insert('x')();
      throw new Error('x failed after writing');
    };
    const results = await Promise.allSettled([commit.run(counting('a')), commit.run(failing), commit.run(counting('b'))]);
    // The first run (a, then x) rolled back: a's value and count from it are dropped.
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['a after 1 failures', 'rejected', 'b after 2 failures']);
    expect(committed).toEqual([2]);
    expect(keys()).toEqual(['a', 'b']);
  });

  it('settles a durable write after the fsync, a durable: false one as soon as it is committed', async () => {
    const order: string[] = [];
    const durable = commit.run(insert('durable')).then(() => order.push('durable'));
    const lease = commit.run(insert('lease'), { durable: false }).then(() => {
      order.push('lease');
      // Committed when it settles: another connection sees both writes of the batch.
      expect(keys()).toEqual(['durable', 'lease']);
    });
    await Promise.all([durable, lease]);
    expect(order).toEqual(['lease', 'durable']);
  });

  it('settles a batch of durable: false writes without waiting for any fsync', async () => {
    // A WAL file that cannot be opened fails every fsync: only a write that waits for one sees it.
    const noSync = new GroupCommit(db, join(dir, 'missing', 'db.sqlite-wal'), 5_000);
    await expect(noSync.run(insert('x'), { durable: false })).resolves.toBe(1);
    await expect(noSync.run(insert('y'))).rejects.toThrow(/ENOENT/);
    expect(keys()).toEqual(['x', 'y']);
  });

  it('waits for a lock another connection holds without stopping the thread, then commits', async () => {
    const other = new DatabaseSync(join(dir, 'db.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const write = commit.run(insert('after-lock'));
    // The thread is free while the write waits: a timer runs, and the other connection commits.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(keys()).toEqual([]);
    other.exec("INSERT INTO t (k) VALUES ('holder')");
    other.exec('COMMIT');
    other.close();
    await expect(write).resolves.toBe(1);
    expect(keys()).toEqual(['after-lock', 'holder']);
  });

  it('waits out a lock SQLite reports by an extended busy code (a WAL index rebuilt after a process died holding it)', async () => {
    // node:sqlite reports extended codes (a unique constraint's is 2067, not 19): SQLITE_BUSY_RECOVERY is 261. No
    // process can be made to die at that moment on cue, so the first BEGIN IMMEDIATE is refused with it here.
    let refused = 0;
    const patient = new GroupCommit(
      beginRefused(db, () => (refused++ === 0 ? { message: 'database is locked', errcode: 261 } : undefined)),
      undefined,
      5_000,
    );
    await expect(patient.run(insert('after-recovery'))).resolves.toBe(1);
    expect(refused).toBe(2);
    expect(keys()).toEqual(['after-recovery']);
    // Any other error still fails the write at once: an I/O error, a table locked within this connection (262).
    for (const [message, errcode] of [['disk I/O error', 266] as const, ['database table is locked', 262] as const]) {
      const failing = new GroupCommit(
        beginRefused(db, () => ({ message, errcode })),
        undefined,
        5_000,
      );
      await expect(failing.run(insert('never'))).rejects.toThrow(message);
    }
  });

  it('gives up with "database is locked" once the lock was taken for the busy timeout', async () => {
    const impatient = new GroupCommit(db, undefined, 50);
    const other = new DatabaseSync(join(dir, 'db.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    await expect(impatient.run(insert('never'))).rejects.toThrow(/database is locked/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    other.exec('ROLLBACK');
    other.close();
    expect(keys()).toEqual([]);
  });

  it('a wall clock stepping forward while it waits for the lock does not end the wait: the busy timeout is a duration', async () => {
    const patient = new GroupCommit(db, undefined, 5_000);
    const other = new DatabaseSync(join(dir, 'db.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const real = Date.now();
    let calls = 0;
    // The wall clock an hour on from the first reading (NTP stepping it forward).
    const stepped = vi.spyOn(Date, 'now').mockImplementation(() => real + (calls++ === 0 ? 0 : 3_600_000));
    try {
      const written = patient.run(insert('after-the-step'));
      setTimeout(() => other.exec('ROLLBACK'), 30);
      await expect(written).resolves.toBe(1);
    } finally {
      stepped.mockRestore();
      other.close();
    }
    expect(keys()).toEqual(['after-the-step']);
  });

  describe("stage: what a batch's writes add up, written once before it commits", () => {
    /** Sums what the writes merge, writes it as one row per flush ('sum:<total>'), and counts its flushes. */
    class SumTally implements BatchTally {
      static flushes = 0;
      total = 0;
      flush(): void {
        SumTally.flushes++;
        db.prepare('INSERT INTO t (k) VALUES (?)').run(`sum:${this.total}`);
      }
    }
    const kind = Symbol('sum');
    const open = () => new SumTally();
    /** A write that inserts `k` and adds `n` to the batch's sum; it throws after staging when `fail`. */
    const adding =
      (k: string, n: number, fail = false) =>
      () => {
        insert(k)();
        commit.stage(kind, open, (tally) => (tally.total += n));
        if (fail) throw new Error(`write ${k} failed after staging`);
        return n;
      };
    beforeEach(() => {
      SumTally.flushes = 0;
    });

    it('merges the writes of one batch and flushes once, in its transaction; a write that throws adds nothing', async () => {
      const results = await Promise.allSettled([commit.run(adding('a', 1)), commit.run(adding('b', 10, true)), commit.run(adding('c', 100))]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      // 1 + 100: b's 10 went with its savepoint (the batch's second run), and one flush wrote the batch's sum.
      expect(keys()).toEqual(['a', 'c', 'sum:101']);
      expect(SumTally.flushes).toBe(1);
    });

    it('peek: a write sees the merges of the writes before it in its run, not its own nor a failed one’s', async () => {
      const seen: (number | undefined)[] = [];
      const peeking =
        (k: string, n: number, fail = false) =>
        () => {
          seen.push(commit.peek<SumTally>(kind)?.total);
          return adding(k, n, fail)();
        };
      await Promise.allSettled([commit.run(peeking('a', 1)), commit.run(peeking('b', 10, true)), commit.run(peeking('c', 100))]);
      // The first run stops at b (it changed a row, then threw); the second runs a savepoint a write, from a fresh tally.
      expect(seen).toEqual([undefined, 1, undefined, 1, 1]);
      expect(keys()).toEqual(['a', 'c', 'sum:101']);
    });

    it('drops what a write staged when it throws having changed nothing, without running the batch again', async () => {
      let calls = 0;
      const refusing = () => {
        calls++;
        commit.stage(kind, open, (tally) => (tally.total += 10));
        throw new Error('refused before writing');
      };
      const results = await Promise.allSettled([commit.run(adding('a', 1)), commit.run(refusing), commit.run(adding('c', 100))]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(calls).toBe(1);
      expect(keys()).toEqual(['a', 'c', 'sum:101']);
    });

    it('gives each batch its own tally: the next batch starts from nothing', async () => {
      await Promise.all([commit.run(adding('a', 1)), commit.run(adding('b', 2))]);
      await commit.run(adding('c', 4));
      expect(keys()).toEqual(['a', 'b', 'c', 'sum:3', 'sum:4']);
      expect(SumTally.flushes).toBe(2);
    });

    it('a batch whose writes all throw flushes nothing', async () => {
      await expect(commit.run(adding('a', 1, true))).rejects.toThrow(/failed after staging/);
      expect(keys()).toEqual([]);
      expect(SumTally.flushes).toBe(0);
    });

    it('a flush that throws fails the whole batch, and nothing of it reaches the next one', async () => {
      const failing = Symbol('failing');
      const openFailing = (): BatchTally => ({
        flush: () => {
          throw new Error('tally could not be written');
        },
      });
      const first = Promise.allSettled([
        commit.run(adding('a', 1)),
        commit.run(() => {
          commit.stage(failing, openFailing, () => {});
          return 0;
        }),
      ]);
      expect((await first).map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(keys()).toEqual([]);
      await commit.run(adding('b', 2));
      expect(keys()).toEqual(['b', 'sum:2']);
    });

    it('a merge that throws fails the whole batch with its own error', async () => {
      const results = await Promise.allSettled([
        commit.run(adding('a', 1)),
        commit.run(() => {
          insert('b')();
          commit.stage(kind, open, () => {
            throw new Error('merge failed');
          });
          return 0;
        }),
      ]);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(['Error: merge failed', 'Error: merge failed']);
      expect(keys()).toEqual([]);
    });

    it('a flush that stages more writes it in the same transaction', async () => {
      const nested = Symbol('nested');
      const openNested = (): BatchTally => ({ flush: () => commit.stage(kind, open, (tally) => (tally.total += 5)) });
      await commit.run(() => {
        commit.stage(nested, openNested, () => {});
        return adding('a', 1)();
      });
      // a's 1 flushed with the batch's sum tally; the nested flush's 5 in a tally of its own, at once.
      expect(keys().sort()).toEqual(['a', 'sum:1', 'sum:5']);
    });

    it('tells a tally its batch committed, and never a tally of a batch that rolled back', async () => {
      const told: string[] = [];
      const telling = Symbol('telling');
      const openTelling = (name: string, fail: boolean) => (): BatchTally => ({
        flush: () => {
          if (fail) throw new Error(`${name} could not be written`);
        },
        committed: () => told.push(name),
      });
      const stageTelling =
        (name: string, fail = false) =>
        () => {
          commit.stage(`${String(telling)}:${name}`, openTelling(name, fail), () => {});
          return insert(name)();
        };
      await commit.run(stageTelling('a'));
      // The second batch's tally fails at its flush: the batch rolls back, and neither of its tallies hears of a commit.
      const second = await Promise.allSettled([commit.run(stageTelling('b')), commit.run(stageTelling('c', true))]);
      expect(second.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(told).toEqual(['a']);
      expect(keys()).toEqual(['a']);
      // Its tallies flushed, the batch fails at COMMIT itself (a deferred foreign key): none told either.
      db.exec('PRAGMA foreign_keys = ON; CREATE TABLE child (k TEXT REFERENCES t (k) DEFERRABLE INITIALLY DEFERRED)');
      const orphan = () => {
        commit.stage(`${String(telling)}:d`, openTelling('d', false), () => {});
        return db.prepare('INSERT INTO child (k) VALUES (?)').run('no such parent').changes;
      };
      await expect(commit.run(orphan)).rejects.toThrow(/FOREIGN KEY/);
      expect(told).toEqual(['a']);
    });

    it('with no transaction open: refused, nothing written', () => {
      expect(() => commit.stage(kind, open, (tally) => (tally.total += 7))).toThrow(/no transaction is open/);
      expect(keys()).toEqual([]);
    });

    it('outside a batch: merged and flushed at once', () => {
      db.exec('BEGIN');
      commit.stage(kind, open, (tally) => (tally.total += 7));
      db.exec('COMMIT');
      expect(keys()).toEqual(['sum:7']);
      expect(SumTally.flushes).toBe(1);
    });
  });

  describe('bulky writes: a share of each batch (BULKY_SHARE_MS), the lighter writes queued behind them not kept waiting', () => {
    /**
     * A GroupCommit on `db` (its WAL fsynced unless `wal` is false) whose clocks move only when a write
     * says it took time: of the CPU and the wall clock alike, or of the wall clock alone (`blocked`).
     */
    function timed(bulkyShareMs: number, { wal = true } = {}) {
      let cpu = 0;
      let wall = 0;
      const gc = new GroupCommit(db, wal ? `${path}-wal` : undefined, 5_000, { bulkyShareMs, cpuNow: () => cpu, wallNow: () => wall });
      const order: string[] = [];
      /** A write of `k` that takes `ms`, noting what the second connection (committed rows only) saw as it ran. */
      const write =
        (k: string, ms: number, { blocked = false } = {}) =>
        () => {
          order.push(`${k} saw ${keys().join(',') || 'none'}`);
          wall += ms;
          if (!blocked) cpu += ms;
          return insert(k)();
        };
      return { gc, order, write };
    }

    it('the share is the thread’s CPU: bulky writes blocked (no CPU) stay in the batch until 4 shares of the wall clock', async () => {
      const { gc, order, write } = timed(4);
      // b1 blocked 5 ms (wall 5, CPU 0): under the share of CPU, b2 runs; b2 blocked 12 more (wall 17 ≥ 4 × 4): b3 waits.
      const done = Promise.all([
        gc.run(write('b1', 5, { blocked: true }), { bulky: true }),
        gc.run(write('b2', 12, { blocked: true }), { bulky: true }),
        gc.run(write('b3', 1), { bulky: true }),
      ]);
      await expect(done).resolves.toEqual([1, 1, 1]);
      expect(order).toEqual(['b1 saw none', 'b2 saw none', 'b3 saw b1,b2']);
      gc.close();
    });

    it('threadCpuMs counts the thread’s CPU, not time it waits', () => {
      const before = threadCpuMs();
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 40); // 40 ms asleep
      expect(threadCpuMs() - before).toBeLessThan(10);
    });

    it('the bulky writes a batch left go first in the next, before writes that arrived meanwhile', async () => {
      // No fsync: b1 settles within its batch's flush, before the next batch's turn.
      const { gc, order, write } = timed(0, { wal: false });
      const first = [gc.run(write('b1', 1), { bulky: true }), gc.run(write('b2', 1), { bulky: true })];
      await first[0]; // the first batch ran b1 and left b2
      const later = gc.run(write('b3', 1), { bulky: true });
      await expect(Promise.all([...first, later])).resolves.toEqual([1, 1, 1]);
      expect(order).toEqual(['b1 saw none', 'b2 saw b1', 'b3 saw b1,b2']);
      gc.close();
    });

    it('a batch run again with savepoints (a light write threw having written) leaves its bulky writes as before, each run once', async () => {
      const { gc, write } = timed(4);
      const calls: string[] = [];
      const counted = (k: string, ms: number) => () => {
        calls.push(k);
        return write(k, ms)();
      };
      const throwsAfterWriting = () => {
        calls.push('l1');
        insert('l1')();
        throw new Error('after writing');
      };
      const results = await Promise.allSettled([
        gc.run(counted('b1', 3), { bulky: true }),
        gc.run(counted('b2', 3), { bulky: true }),
        gc.run(counted('b3', 3), { bulky: true }),
        gc.run(throwsAfterWriting),
      ]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([1, 1, 1, 'Error: after writing']);
      // The batch ran b1, b2 and l1 (b3 left), was undone and ran again with savepoints (b3 left again), then b3.
      expect(calls).toEqual(['b1', 'b2', 'l1', 'b1', 'b2', 'l1', 'b3']);
      expect(keys()).toEqual(['b1', 'b2', 'b3']);
      gc.close();
    });

    // Writes of 3 ms each. A share of 4: b1 ends at 3 (< 4, so b2 runs), b2 at 6, so b3 waits and l1, light, runs
    // first. A share of 10: 3 + 3 + 3 = 9 < 10, nothing waits.
    it.each([
      {
        share: 4,
        order: ['b1 saw none', 'b2 saw none', 'l1 saw none', 'b3 saw b1,b2,l1'],
        what: 'past the share the bulky writes left wait for the next batch; a light write queued after them commits first',
      },
      { share: 10, order: ['b1 saw none', 'b2 saw none', 'b3 saw none', 'l1 saw none'], what: 'within the share they run in one batch, in their order' },
    ])('a share of $share ms: $what', async ({ share, order: expected }) => {
      const { gc, order, write } = timed(share);
      const done = Promise.all([
        gc.run(write('b1', 3), { bulky: true }),
        gc.run(write('b2', 3), { bulky: true }),
        gc.run(write('b3', 3), { bulky: true }),
        gc.run(write('l1', 3)),
      ]);
      await expect(done).resolves.toEqual([1, 1, 1, 1]);
      expect(order).toEqual(expected);
      gc.close();
    });

    it('a batch runs its first write even past the share (the queue moves on), and a bulky one waiting keeps its place among the bulky', async () => {
      const { gc, order, write } = timed(0);
      const done = Promise.all([gc.run(write('b1', 1), { bulky: true }), gc.run(write('b2', 1), { bulky: true }), gc.run(write('b3', 1), { bulky: true })]);
      await expect(done).resolves.toEqual([1, 1, 1]);
      expect(order).toEqual(['b1 saw none', 'b2 saw b1', 'b3 saw b1,b2']);
      gc.close();
    });

    it('a batch that fails at its end rejects the writes it ran; those it left run in the next, on their own', async () => {
      const { gc, write } = timed(4);
      const failing: BatchTally = {
        flush: () => {
          throw new Error('the tally could not be written');
        },
      };
      const a = () => {
        gc.stage(
          'failing',
          () => failing,
          () => {},
        );
        return write('a', 5)();
      };
      const results = await Promise.allSettled([gc.run(a, { bulky: true }), gc.run(write('b', 1), { bulky: true })]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual(['Error: the tally could not be written', 1]);
      expect(keys()).toEqual(['b']);
      gc.close();
    });

    it('closing commits the bulky writes still waiting, all at once', async () => {
      // No fsync: b1 settles within its batch's flush, before the next batch's turn.
      const { gc, write } = timed(0, { wal: false });
      const pending = [gc.run(write('b1', 5), { bulky: true }), gc.run(write('b2', 5), { bulky: true }), gc.run(write('b3', 5), { bulky: true })];
      await pending[0]; // the first batch ran b1 and left b2 and b3 for the next
      expect(keys()).toEqual(['b1']);
      gc.close();
      // Committed within close (the connection closes next): not left for a batch after it.
      expect(keys()).toEqual(['b1', 'b2', 'b3']);
      await expect(Promise.all(pending)).resolves.toEqual([1, 1, 1]);
    });
  });

  it('commits what is queued when closed', async () => {
    const pending = commit.run(insert('late'));
    commit.close();
    await expect(pending).resolves.toBe(1);
    expect(keys()).toEqual(['late']);
  });
});
