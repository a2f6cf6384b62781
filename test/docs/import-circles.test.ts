// No import circles among the repository's TypeScript files (type-only imports count too; see
// import-circles.ts for how the graph is read and why not madge or dependency-cruiser).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph, typeScriptFiles } from './import-circles.ts';

const root = join(import.meta.dirname, '../..');

describe('import circles', () => {
  const files = typeScriptFiles(root);

  it('reads every TypeScript file of the repository, tests and web app included', () => {
    expect(files.length).toBeGreaterThan(700);
    expect(files).toContain('services/portal/web/src/app.tsx');
    expect(files).toContain('test/docs/import-circles.test.ts');
  });

  it('no two files import each other, directly or around a circle', () => {
    const found = circles(importGraph(root, files));
    expect(found.map((circle) => circle.join(', '))).toEqual([]);
  });
});

describe('the circle finder', () => {
  it('finds each strongly connected group of files, and nothing for a chain or a self-import', () => {
    const graph = new Map(Object.entries({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [], e: ['f', 'a'], f: ['e'], g: ['g'], h: ['a'] }));
    expect(circles(graph)).toEqual([
      ['a', 'b', 'c'],
      ['e', 'f'],
    ]);
  });

  it('reads a circle closed by type-only imports, and not one in a comment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circles-'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/a.ts'), "import type { B } from './b.ts';\nexport type A = B[];\n");
    writeFileSync(join(dir, 'src/b.ts'), "export type { A } from './a.ts';\nexport interface B {}\n");
    writeFileSync(join(dir, 'src/c.ts'), "// import { c } from './d.ts';\nexport const c = 1;\n");
    writeFileSync(join(dir, 'src/d.ts'), "import { c } from './c.ts';\nexport const d = c;\n");
    try {
      expect(circles(importGraph(dir, typeScriptFiles(dir)))).toEqual([['src/a.ts', 'src/b.ts']]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
