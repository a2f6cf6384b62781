import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHeapSnapshot, readWholeFile } from '../../bench/alloc/heap-snapshot-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'heap-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readHeapSnapshot', () => {
  it('reads a real snapshot exactly as JSON.parse does', () => {
    // A bare process's heap (a few MB): this worker's would be the test runner's.
    const file = join(dir, 'real.heapsnapshot');
    execFileSync(process.execPath, ['-e', "require('node:v8').writeHeapSnapshot(process.argv[1])", file]);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: unknown; nodes: number[]; strings: string[] };
    const read = readHeapSnapshot(readWholeFile(file));
    expect(read.snapshot).toEqual(parsed.snapshot);
    expect(read.nodes.length).toBe(parsed.nodes.length);
    expect(read.nodes.length).toBeGreaterThan(10_000);
    // One comparison of the lot (toEqual over ≈ 10^5 numbers is slow): the first index that differs.
    expect(parsed.nodes.findIndex((value, i) => read.nodes[i] !== value)).toBe(-1);
    expect(read.strings).toEqual(parsed.strings);
  });

  it('parses each string with its escapes, quotes and non-ASCII intact, in V8’s layout', () => {
    const strings = ['', 'plain', 'a "quoted" word', 'back\\slash\\', 'tab\tnew\nline', 'é ✓ 😀', '\\"', '] , ['];
    const text = [
      '{"snapshot":{"meta":{"node_fields":["type","name"],"node_types":[["object"]]},"node_count":2},',
      '"nodes":[0,1',
      ',0,12345678901',
      '],',
      '"edges":[1,2,3],',
      '"locations":[],',
      `"strings":[${strings.map((s) => JSON.stringify(s)).join(',\n')}]}`,
    ].join('\n');
    const read = readHeapSnapshot(Buffer.from(text));
    expect(Array.from(read.nodes)).toEqual([0, 1, 0, 12345678901]);
    expect(read.strings).toEqual(strings);
    expect(read.snapshot.meta.node_fields).toEqual(['type', 'name']);
  });

  it('refuses a file that is not a whole snapshot, saying what is missing', () => {
    expect(() => readHeapSnapshot(Buffer.from('{"a":1}'))).toThrow(/no "nodes" array/);
    expect(() => readHeapSnapshot(Buffer.from('{"snapshot":{},"nodes":[1,2'))).toThrow(/never closes/);
    expect(() => readHeapSnapshot(Buffer.from('{"snapshot":{},"nodes":[1,2],"edges":[]}'))).toThrow(/no "strings" array/);
    expect(() => readHeapSnapshot(Buffer.from('{"snapshot":{},"nodes":[],"strings":["a","b'))).toThrow(/strings never close/);
    // Not the non-negative integers V8 writes: refused, not read as other numbers.
    expect(() => readHeapSnapshot(Buffer.from('{"snapshot":{},"nodes":[1,-2],"strings":[]}'))).toThrow(/"-" at byte 26/);
    expect(() => readHeapSnapshot(Buffer.from('{"snapshot":{},"nodes":[1.5],"strings":[]}'))).toThrow(/"\." at byte/);
  });
});
