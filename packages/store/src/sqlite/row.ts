import type { SQLOutputValue } from 'node:sqlite';

// Typed column readers: node:sqlite hands out loosely typed values, and a wrong type here
// means the schema and the mappers disagree, which should fail loudly, not propagate.

/** A result row as node:sqlite returns it. */
export type Row = Record<string, SQLOutputValue>;

/** The text in `column`. @throws TypeError when it is not text. */
export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column}: expected text, got ${typeOf(value)}`);
  return value;
}

/** The text in `column`, or null. @throws TypeError when it is neither. */
export function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

/**
 * SQLite's BINARY order of two texts, for rows sorted in JavaScript: the same as UTF-16 code-unit
 * order for the ASCII the ids and keys it sorts are made of.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The integer in `column`. @throws TypeError when it is not a number. */
export function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number') throw new TypeError(`column ${column}: expected integer, got ${typeOf(value)}`);
  return value;
}

/** The integer in `column`, or null. @throws TypeError when it is neither. */
export function intOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : int(row, column);
}

/** The JSON text in `column`, parsed. */
export function json<T>(row: Row, column: string): T {
  return JSON.parse(text(row, column)) as T;
}

/** The JSON text in `column`, parsed, or null. */
export function jsonOrNull<T>(row: Row, column: string): T | null {
  return row[column] === null ? null : json<T>(row, column);
}

/** `value` as JSON text, or null for null. */
export function toJsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function typeOf(value: SQLOutputValue | undefined): string {
  if (value === null) return 'null';
  if (value === undefined) return 'no such column';
  return typeof value;
}
