// SqliteConnection.snapshot: the reads of one call (an API key's lookup: the key's row, then its
// org's) see one state of the database, whatever another connection commits between them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteConnection } from './connection.ts';

describe('SqliteConnection.snapshot', () => {
  let dir: string;
  let writer: DatabaseSync;
  let reader: SqliteConnection;
  const readV = (conn: SqliteConnection) => conn.statement('SELECT v FROM t WHERE k = 1').get()?.['v'];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wirehook-snapshot-'));
    writer = new DatabaseSync(join(dir, 'db.sqlite'));
    writer.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'before')");
    reader = new SqliteConnection(new DatabaseSync(join(dir, 'db.sqlite'), { readOnly: true }));
  });

  afterEach(async () => {
    await reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads one state: a commit between its reads is seen by the next call, not by the rest of this one', () => {
    const seen = reader.snapshot(() => {
      const first = readV(reader);
      writer.exec("UPDATE t SET v = 'after' WHERE k = 1");
      return [first, readV(reader)];
    });
    expect(seen).toEqual(['before', 'before']);
    expect(reader.db.isTransaction).toBe(false);
    expect(readV(reader)).toBe('after');
    // Outside a snapshot, each statement reads the newest state: the same two reads see the commit.
    const first = readV(reader);
    writer.exec("UPDATE t SET v = 'again' WHERE k = 1");
    expect([first, readV(reader)]).toEqual(['after', 'again']);
  });

  it('rethrows what its reads throw, and leaves no transaction open', () => {
    expect(() =>
      reader.snapshot(() => {
        readV(reader);
        throw new Error('the read failed');
      }),
    ).toThrow('the read failed');
    expect(reader.db.isTransaction).toBe(false);
  });

  it('rethrows the reads’ own error when SQLite has already ended the transaction (no COMMIT error in its place)', () => {
    expect(() =>
      reader.snapshot(() => {
        readV(reader);
        reader.db.exec('ROLLBACK'); // as SQLite ends a transaction on an I/O error
        throw new Error('disk I/O error');
      }),
    ).toThrow('disk I/O error');
    expect(reader.db.isTransaction).toBe(false);
  });

  it('inside a transaction already open, runs in it (no second BEGIN)', () => {
    reader.db.exec('BEGIN');
    try {
      expect(reader.snapshot(() => readV(reader))).toBe('before');
      expect(reader.db.isTransaction).toBe(true);
    } finally {
      reader.db.exec('COMMIT');
    }
  });
});
