import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellRefs, checkRows, mapRows, type Ref } from './doc-refs.ts';

// docs/spec-map.md must stay true: every file, symbol, constant value and test title it names
// is checked against the tree (notation: test/docs/doc-refs.ts).
const root = join(import.meta.dirname, '../..');
const map = readFileSync(join(root, 'docs/spec-map.md'), 'utf8');
const rows = mapRows(map);
const refs = rows.flatMap((r) => r.cells.flatMap((c) => cellRefs(c.text).map((ref) => ({ ref, column: c.column }))));
const count = (kind: Ref['kind']) => refs.filter((r) => r.ref.kind === kind).length;

describe('docs/spec-map.md', () => {
  it('is read as tables of references (a map the parser no longer understands fails here, not silently)', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
    expect(count('value')).toBeGreaterThanOrEqual(20);
    expect(count('test')).toBeGreaterThanOrEqual(60);
    expect(count('symbol')).toBeGreaterThanOrEqual(40);
  });

  it('every row names its enforcing code and a test', () => {
    const bare = rows.filter((r) => {
      const inRow = r.cells.flatMap((c) => cellRefs(c.text).map((ref) => ({ ref, column: c.column })));
      return !inRow.some((x) => x.column === 'Enforced in' && x.ref.kind !== 'test') || !inRow.some((x) => x.ref.kind === 'test');
    });
    expect(bare.map((r) => `spec-map.md:${r.line}: ${r.cells[1]?.text ?? ''}`)).toEqual([]);
  });

  it('names only files that exist, symbols declared in them, constants of the stated value imported by the enforcing code, and tests that exist', async () => {
    expect(await checkRows(root, rows)).toEqual([]);
  });
});

describe('the map checker', () => {
  const table = (...lines: string[]) => mapRows(['| # | Rule | Constant | Enforced in | Tests |', '| - | - | - | - | - |', ...lines].join('\n'));

  it('reads the notation', () => {
    const refs = cellRefs(
      '`packages/core/src/limits.ts#MAX_BODY_BYTES` = `1_100_000`; `a/b.ts#x` ∋ `.max(2)`; `a/b.ts#C.m`; `a/b.test.ts > d > t`; `a/b.ts`; `limit`',
    );
    expect(refs).toEqual([
      { kind: 'value', path: 'packages/core/src/limits.ts', symbol: 'MAX_BODY_BYTES', value: '1_100_000' },
      { kind: 'contains', path: 'a/b.ts', symbol: 'x', snippet: '.max(2)' },
      { kind: 'symbol', path: 'a/b.ts', symbol: 'C.m' },
      { kind: 'test', path: 'a/b.test.ts', titles: ['d', 't'] },
      { kind: 'file', path: 'a/b.ts' },
    ]);
  });

  it('finds a wrong value, a constant the enforcing code does not import, a missing symbol, file and test', async () => {
    const problems = await checkRows(
      root,
      table(
        '| 1 | r | `packages/core/src/limits.ts#MAX_BODY_BYTES` = `1_000_000` | `packages/core/src/limits.ts#MAX_PAYLOAD_BYTES` | ' +
          '`test/docs/spec-map.test.ts > the map checker > reads the notation` |',
        '| 2 | r | `packages/core/src/limits.ts#MAX_PAGE_SIZE` = `100` | `packages/core/src/plans.ts#PLANS` | `test/docs/spec-map.test.ts > no such test` |',
        '| 3 | r | `packages/core/src/plans.ts#PLANS.business.requestsPerMinute` = `20,000` | ' +
          '`packages/core/src/plans.ts#NOT_THERE` | `no/such/file.test.ts > x` |',
      ),
    );
    expect(problems).toEqual([
      'spec-map.md:3: packages/core/src/limits.ts#MAX_BODY_BYTES is 1100000, the map says 1000000',
      'spec-map.md:4: packages/core/src/limits.ts#MAX_PAGE_SIZE: no file of the row\'s "Enforced in" imports MAX_PAGE_SIZE',
      'spec-map.md:4: test/docs/spec-map.test.ts: no it/test/describe titled "no such test"',
      'spec-map.md:5: packages/core/src/plans.ts#NOT_THERE: NOT_THERE not declared there',
      'spec-map.md:5: no/such/file.test.ts: no such file',
    ]);
  });
});
