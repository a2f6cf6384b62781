// No line of the repository's TypeScript is longer than 160 characters. Biome's formatter
// (biome.jsonc, `lineWidth: 160`) keeps code within 160, but it does not break what it cannot
// break without changing the program: string literals, comments and test titles. This test covers
// those. Length is counted in characters (code points), not bytes, so a line of Japanese in the
// portal's catalogue counts as many characters as it shows.
// Generated files are left out, as Biome leaves them out: packages/rpc/src/gen (buf generate from
// the .proto files) and packages/client/src/api-types.ts (openapi-typescript, `pnpm openapi`) are
// rewritten by their generators, so a hand-wrapped line there would be lost on the next run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from './import-circles.ts';

const root = join(import.meta.dirname, '../..');
const LIMIT = 160;
const GENERATED = ['packages/client/src/api-types.ts']; // packages/rpc/src/gen: typeScriptFiles skips every `gen` folder
// Known exceptions: files whose long lines are left as they are. 017-endpoint-rollups.ts is a
// shipped schema step (never edited, not even to rewrap its SQL).
const KNOWN_EXCEPTIONS = ['packages/store/src/sqlite/migrations/017-endpoint-rollups.ts'];

/** `file:line (length)` for each line of `files` longer than `limit` characters. */
export function longLines(files: readonly string[], read: (file: string) => string, limit = LIMIT): string[] {
  const out: string[] = [];
  for (const file of files) {
    read(file)
      .split(/\r?\n/)
      .forEach((line, i) => {
        const length = [...line].length;
        if (length > limit) out.push(`${file}:${i + 1} (${length})`);
      });
  }
  return out;
}

describe('line length', () => {
  const files = typeScriptFiles(root).filter((file) => !GENERATED.includes(file));
  const checked = files.filter((file) => !KNOWN_EXCEPTIONS.includes(file));

  it('reads every hand-written TypeScript file, and no generated one', () => {
    expect(files.length).toBeGreaterThan(700);
    expect(files).toContain('services/portal/web/src/catalogue-ja.ts');
    expect(files.some((file) => file.startsWith('packages/rpc/src/gen/'))).toBe(false);
    expect(files).not.toContain('packages/client/src/api-types.ts');
  });

  it(`no line is longer than ${LIMIT} characters`, () => {
    expect(longLines(checked, (file) => readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });

  it('lists as known exceptions only files that exist and still have a long line', () => {
    const stale = KNOWN_EXCEPTIONS.filter((file) => !files.includes(file) || longLines([file], (f) => readFileSync(join(root, f), 'utf8')).length === 0);
    expect(stale).toEqual([]);
  });

  it('counts characters, not bytes, and names each long line by file and line', () => {
    const text: Record<string, string> = { 'a.ts': `${'x'.repeat(10)}\n${'y'.repeat(11)}\n`, 'b.ts': `${'あ'.repeat(10)}\r\n${'い'.repeat(12)}` };
    expect(longLines(Object.keys(text), (file) => text[file]!, 10)).toEqual(['a.ts:2 (11)', 'b.ts:2 (12)']);
  });
});
