// An error as it crosses from the store's thread: a real SQLite error keeps what tells it apart.
import { DatabaseSync } from 'node:sqlite';
import { NotFoundError } from '@wirehook/core/without-schemas';
import { expect, it } from 'vitest';
import { deserializeError, serializeError } from './remote-error.ts';

it('keeps a SQLite error’s extended code across the thread (the message is the same for every busy kind)', () => {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (a UNIQUE); INSERT INTO t VALUES (1)');
  let thrown: unknown;
  try {
    db.exec('INSERT INTO t VALUES (1)');
  } catch (err) {
    thrown = err;
  }
  db.close();
  // Through structured cloning, as a post between threads copies it.
  const back = deserializeError(structuredClone(serializeError(thrown)));
  expect(back).toMatchObject({ message: expect.stringContaining('UNIQUE'), code: 'ERR_SQLITE_ERROR', errcode: 2067 });
  // Wirehook's own errors come back as their class; others have no errcode to add.
  expect(deserializeError(structuredClone(serializeError(new NotFoundError('no such endpoint'))))).toBeInstanceOf(NotFoundError);
  expect(deserializeError(structuredClone(serializeError(new TypeError('x'))))).not.toHaveProperty('errcode');
});
