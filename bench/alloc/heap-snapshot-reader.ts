// Reads the parts of a V8 heap snapshot the summary needs from the file's bytes. JSON.parse would
// need the whole file as one string, and V8's strings stop at 2^29 − 24 characters (≈ 512 MB): a
// snapshot of a heap under load passes that. A Buffer has no such cap, and the snapshot's layout
// is fixed by V8 (`"snapshot":{…}`, then `"nodes":[…]`, the other numeric arrays, `"strings":[…]`
// last), so a scan of the bytes reads the numbers and parses one string at a time.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** What the summary reads: the meta, every node's fields in one flat array, the string table. */
export interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: Float64Array;
  strings: string[];
}

/** The whole file as bytes, read in steps: `readFileSync` stops at 2 GiB, a Buffer does not. */
export function readWholeFile(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
    for (let at = 0; at < bytes.length; ) {
      const read = readSync(fd, bytes, at, Math.min(1 << 30, bytes.length - at), at);
      if (read === 0) throw new Error(`${file} ended at ${at} of its ${bytes.length} bytes while being read`);
      at += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

const NODES = Buffer.from('"nodes":[');
const STRINGS = Buffer.from('"strings":[');
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]
const ZERO = 0x30;
const NINE = 0x39;
const NEWLINE = 0x0a;
const SPACE = 0x20;

export function readHeapSnapshot(bytes: Buffer): HeapSnapshot {
  const nodesAt = bytes.indexOf(NODES);
  if (nodesAt < 0) throw new Error('not a V8 heap snapshot: no "nodes" array');
  // The head is `{"snapshot":{…},` — small: parsed whole once its last comma is closed instead.
  const head = JSON.parse(`${bytes.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`) as Pick<HeapSnapshot, 'snapshot'>;
  const { values: nodes, end } = readNumbers(bytes, nodesAt + NODES.length);
  const stringsAt = bytes.indexOf(STRINGS, end);
  if (stringsAt < 0) throw new Error('not a V8 heap snapshot: no "strings" array');
  return { snapshot: head.snapshot, nodes, strings: readStrings(bytes, stringsAt + STRINGS.length) };
}

/** The non-negative integers of an array from `at` to its `]`, and the index after it. */
function readNumbers(bytes: Buffer, at: number): { values: Float64Array; end: number } {
  let values = new Float64Array(1 << 20);
  let count = 0;
  let value = 0;
  let digits = false;
  for (let i = at; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte >= ZERO && byte <= NINE) {
      value = value * 10 + (byte - ZERO);
      digits = true;
    } else if (byte === COMMA || byte === CLOSE) {
      if (digits) {
        if (count === values.length) {
          const grown = new Float64Array(values.length * 2);
          grown.set(values);
          values = grown;
        }
        values[count++] = value;
      }
      value = 0;
      digits = false;
      if (byte === CLOSE) return { values: values.subarray(0, count), end: i + 1 };
    } else if (byte !== NEWLINE && byte !== SPACE) {
      // A sign, a point or a letter: not the non-negative integers V8 writes here; no silent misreading.
      throw new Error(`not a V8 heap snapshot: ${JSON.stringify(String.fromCharCode(byte))} at byte ${i} of a numeric array`);
    }
  }
  throw new Error('truncated heap snapshot: an array never closes');
}

/** The JSON strings of an array from `at` to its `]`, each parsed on its own. */
function readStrings(bytes: Buffer, at: number): string[] {
  const strings: string[] = [];
  for (let i = at; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === CLOSE) return strings;
    if (byte !== QUOTE) continue; // commas and newlines
    let end = i + 1;
    while (end < bytes.length && bytes[end] !== QUOTE) end += bytes[end] === BACKSLASH ? 2 : 1;
    if (end >= bytes.length) break;
    strings.push(JSON.parse(bytes.toString('utf8', i, end + 1)) as string);
    i = end;
  }
  throw new Error('truncated heap snapshot: the strings never close');
}
