// SQLite's extended result code for a UNIQUE index violation (SQLITE_CONSTRAINT_UNIQUE).
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/**
 * True when `err` is SQLite's unique-constraint failure on the index over exactly
 * `columns` of `table` (SQLite names them in its message), so a clash on another index,
 * such as a duplicate primary key, is not mistaken for it.
 */
export function isUniqueViolation(err: unknown, table: string, columns: readonly string[]): boolean {
  if (!(err instanceof Error) || (err as { errcode?: unknown }).errcode !== SQLITE_CONSTRAINT_UNIQUE) return false;
  const expected = `UNIQUE constraint failed: ${columns.map((c) => `${table}.${c}`).join(', ')}`;
  return err.message === expected;
}
