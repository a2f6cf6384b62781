// The import rules of docs/architecture.md, checked over every TypeScript file of services/*
// and packages/*:
//   1. packages never import services (by name or by path);
//   2. production code reaches another workspace folder only through its package's public
//      entry (`@wirehook/<name>` or a subpath its package.json exports), never by a relative
//      path or a deep `@wirehook/<name>/src/…` import;
//   3. a service imports another service only along an edge listed below;
//   4. production code never imports vitest or @wirehook/testkit;
//   5. production code imports of our packages only what the "may import" column of the tree
//      table lists for its folder (may-import.ts reads it).
// Test code follows one convention (docs/architecture.md, "Test code"): a `*.test.ts(x)` file
// (vitest runs it), a `*.test-suite.ts` file (a suite that test files run, e.g. in both modes),
// or a file under a `test/` folder (a package's contract suites; the repository's test/) or a
// `src/testing/` folder (support a package's or service's own tests share).
// A regex scanner (doc-refs.ts), not the compiler API: the repository's TypeScript 7 ships none.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from './doc-refs.ts';
import { type MayImport, mayImportColumn, rowOf } from './may-import.ts';

const root = join(import.meta.dirname, '../..');

/**
 * Service → services it may import (their public entry). Embedded mode composes them all; what the
 * gateway and the portal share is a package (packages/http-api).
 */
const SERVICE_IMPORTS: Record<string, readonly string[]> = {
  embedded: ['alerting', 'dispatcher', 'egress-relay', 'gateway', 'message-intake', 'portal', 'recovery'],
};

interface Folder {
  dir: string; // services/gateway
  kind: 'services' | 'packages';
  short: string; // gateway
  name: string; // @wirehook/gateway
  exports: Set<string>; // '.', './tracing'
}

function folders(): Folder[] {
  return (['services', 'packages'] as const).flatMap((kind) =>
    readdirSync(join(root, kind))
      .filter((short) => existsSync(join(root, kind, short, 'package.json')))
      .map((short) => {
        const pkg = JSON.parse(readFileSync(join(root, kind, short, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> | string };
        const exports = new Set(typeof pkg.exports === 'object' ? Object.keys(pkg.exports) : ['.']);
        return { dir: `${kind}/${short}`, kind, short, name: pkg.name, exports };
      }),
  );
}

const SKIP = new Set(['node_modules', 'dist', 'gen', '.vite']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir))) {
    if (SKIP.has(entry)) continue;
    const path = `${dir}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(m?ts|tsx)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Whether a file is test code (see the header). */
export function isTestCode(path: string): boolean {
  const parts = path.split('/');
  const file = parts.at(-1)!;
  return /\.test(-suite)?\.tsx?$/.test(file) || parts.slice(0, -1).some((p) => p === 'test' || p === 'testing');
}

/** Strips comment lines and doc blocks, so an example in a comment is not an import. */
function code(path: string): string {
  return readFileSync(join(root, path), 'utf8')
    .replace(/^\s*\/\*[\s\S]*?\*\/[ \t]*$/gm, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

/** Whether a folder's "may import" row lets it import `spec` (of the folder `target`). */
function listed(row: MayImport, target: Folder, spec: string): boolean {
  if (row.names.has(spec) || row.names.has(target.name)) return true;
  return target.kind === 'packages' ? row.packages : row.services;
}

/** The problems of one file's imports (empty: it keeps the rules). */
export function importProblems(path: string, specs: string[], all: Folder[], rows: readonly MayImport[]): string[] {
  const own = all.find((f) => path.startsWith(`${f.dir}/`));
  if (!own) return [];
  const row = rowOf(rows, path);
  const test = isTestCode(path);
  const problems: string[] = [];
  for (const spec of specs) {
    if (!test && (spec === 'vitest' || spec.startsWith('vitest/') || spec === '@wirehook/testkit' || spec.startsWith('@wirehook/testkit/'))) {
      problems.push(`${path}: production code imports ${spec} (rule 4)`);
      continue;
    }
    let target: Folder | undefined;
    let deep = false;
    if (spec.startsWith('@wirehook/')) {
      target = all.find((f) => spec === f.name || spec.startsWith(`${f.name}/`));
      if (!target) continue;
      const sub = spec === target.name ? '.' : `.${spec.slice(target.name.length)}`;
      deep = !target.exports.has(sub);
    } else if (spec.startsWith('.')) {
      const resolved = relative(root, resolve(dirname(join(root, path)), spec))
        .split(sep)
        .join('/');
      target = all.find((f) => resolved === f.dir || resolved.startsWith(`${f.dir}/`));
      if (target === undefined && !resolved.startsWith(`${own.dir}/`)) {
        if (!test) problems.push(`${path}: production code imports ${spec}, outside the workspace folders (rule 2)`);
        continue;
      }
      if (!target || target === own) continue;
      deep = true;
    } else continue;
    if (target === own) continue;
    if (own.kind === 'packages' && target.kind === 'services') problems.push(`${path}: a package imports the service ${target.name} (${spec}) (rule 1)`);
    else if (deep && !test) problems.push(`${path}: imports ${spec}, not the public entry of ${target.name} (rule 2)`);
    else if (!test && own.kind === 'services' && target.kind === 'services' && !(SERVICE_IMPORTS[own.short] ?? []).includes(target.short)) {
      problems.push(`${path}: the service ${own.name} imports the service ${target.name}, an edge not listed in SERVICE_IMPORTS (rule 3)`);
    } else if (!test && row !== undefined && !listed(row, target, spec)) {
      problems.push(`${path}: imports ${spec}, not in the "may import" column of ${row.dir} (rule 5)`);
    }
  }
  return problems;
}

const all = folders();
const rows = mayImportColumn(
  readFileSync(join(root, 'docs/architecture.md'), 'utf8'),
  all.filter((f) => f.kind === 'packages').map((f) => f.short),
);

describe('import rules (docs/architecture.md)', () => {
  const files = all.flatMap((f) => sourceFiles(f.dir));

  it('scans every workspace folder', () => {
    expect(all.filter((f) => f.kind === 'services').length).toBeGreaterThanOrEqual(9);
    expect(all.filter((f) => f.kind === 'packages').length).toBeGreaterThanOrEqual(12);
    expect(files.length).toBeGreaterThan(300);
  });

  it('packages never import services; production code reaches other folders by public entries only, services along listed edges, never vitest/testkit', () => {
    expect(files.flatMap((path) => importProblems(path, importSpecifiers(code(path)), all, rows))).toEqual([]);
  });

  it('every workspace folder has a "may import" row in docs/architecture.md', () => {
    expect(all.filter((f) => !rows.some((r) => r.dir === f.dir)).map((f) => f.dir)).toEqual([]);
  });

  // SERVICE_IMPORTS may be narrower (embedded may import "every service's public entry", and
  // takes all but the cluster launcher's), never wider than the column.
  it('every edge of SERVICE_IMPORTS is in the "may import" column', () => {
    const unlisted = Object.entries(SERVICE_IMPORTS).flatMap(([from, targets]) => {
      const row = rows.find((r) => r.dir === `services/${from}`)!;
      return targets.filter((to) => !listed(row, all.find((f) => f.dir === `services/${to}`)!, `@wirehook/${to}`)).map((to) => `${from} → ${to}`);
    });
    expect(unlisted).toEqual([]);
  });
});

describe('the import scanner', () => {
  it('reads static, type-only, side-effect, re-export and dynamic imports', () => {
    const text = [
      "import { a } from '@wirehook/core';",
      "import type { B } from './b.ts';",
      "import './side.ts';",
      "export { c } from '../c.ts';",
      'import {\n  d,\n  e,\n} from "vitest";',
      "const m = await import('@wirehook/gateway');",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['@wirehook/core', './b.ts', './side.ts', '../c.ts', 'vitest', '@wirehook/gateway']);
  });

  it('finds each kind of breach', () => {
    expect(
      importProblems(
        'packages/core/src/x.ts',
        ['@wirehook/gateway', 'vitest', '../../store/src/store.ts', '@wirehook/store/src/store.ts', '@wirehook/store'],
        all,
        rows,
      ),
    ).toEqual([
      'packages/core/src/x.ts: a package imports the service @wirehook/gateway (@wirehook/gateway) (rule 1)',
      'packages/core/src/x.ts: production code imports vitest (rule 4)',
      'packages/core/src/x.ts: imports ../../store/src/store.ts, not the public entry of @wirehook/store (rule 2)',
      'packages/core/src/x.ts: imports @wirehook/store/src/store.ts, not the public entry of @wirehook/store (rule 2)',
      'packages/core/src/x.ts: imports @wirehook/store, not in the "may import" column of packages/core (rule 5)',
    ]);
    expect(importProblems('packages/store/src/x.ts', ['@wirehook/core', '@wirehook/kv'], all, rows)).toEqual([
      'packages/store/src/x.ts: imports @wirehook/kv, not in the "may import" column of packages/store (rule 5)',
    ]);
    expect(importProblems('services/portal/web/src/x.tsx', ['@wirehook/client/types', '@wirehook/client', '@wirehook/gateway'], all, rows)).toEqual([
      'services/portal/web/src/x.tsx: imports @wirehook/client, not in the "may import" column of services/portal/web (rule 5)',
      'services/portal/web/src/x.tsx: the service @wirehook/portal imports the service @wirehook/gateway, an edge not listed in SERVICE_IMPORTS (rule 3)',
    ]);
    expect(importProblems('packages/store/test/contract/x.ts', ['@wirehook/kv', '@wirehook/testkit'], all, rows)).toEqual([]);
    expect(importProblems('services/gateway/src/x.ts', ['@wirehook/portal', '@wirehook/testkit'], all, rows)).toEqual([
      'services/gateway/src/x.ts: the service @wirehook/gateway imports the service @wirehook/portal, an edge not listed in SERVICE_IMPORTS (rule 3)',
      'services/gateway/src/x.ts: production code imports @wirehook/testkit (rule 4)',
    ]);
    expect(importProblems('services/gateway/src/x.test.ts', ['@wirehook/portal', '@wirehook/testkit', 'vitest'], all, rows)).toEqual([]);
    // The portal reaches the API through the package; the gateway service is no longer its to import.
    expect(importProblems('services/portal/src/x.ts', ['@wirehook/http-api', '@wirehook/platform/tracing'], all, rows)).toEqual([]);
    expect(importProblems('services/portal/src/x.ts', ['@wirehook/gateway'], all, rows)).toEqual([
      'services/portal/src/x.ts: the service @wirehook/portal imports the service @wirehook/gateway, an edge not listed in SERVICE_IMPORTS (rule 3)',
    ]);
  });

  it('tells test code from production code', () => {
    expect(
      ['a/src/x.test.ts', 'a/src/view.test.tsx', 'test/e2e/delivery.test-suite.ts', 'a/test/contract.ts', 'a/src/testing/s.ts'].filter(isTestCode),
    ).toHaveLength(5);
    // The old ways of saying "test" no longer make a file test code: such a file would be production code.
    expect(
      [
        'a/src/store-contract.ts',
        'a/src/attestation.ts',
        'a/src/testkit.ts',
        'a/src/dispatch-test-scene.ts',
        'a/src/front-fixture.ts',
        'a/src/test-support/s.ts',
      ].filter(isTestCode),
    ).toEqual([]);
  });

  it('test support in src/ lives only in testing/ folders: no file or folder named like test support elsewhere', () => {
    const stray = all
      .flatMap((f) => sourceFiles(f.dir))
      // packages/testkit is test support as a whole (production code may not import it: rule 4).
      .filter((path) => /\/src\//.test(path) && !isTestCode(path) && !path.startsWith('packages/testkit/'))
      .filter((path) => /(^|[-./])(tests?|fixtures?|test-support|test-scene|mocks?|fakes?)([-./]|$)/.test(path.split('/src/')[1] ?? ''));
    expect(stray).toEqual([]);
  });
});

describe('the "may import" column reader', () => {
  const table = (cell: string) => `| folder | what lives there | may import |\n| --- | --- | --- |\n| \`packages/x\`, \`packages/y\` | things | ${cell} |\n`;

  it('reads packages, services, package folder names, named entries and remarks', () => {
    const [x, y] = mayImportColumn(table("packages; every service's public entry; core, `@wirehook/client/types` (why); imported by tests only"), ['core']);
    expect(x).toEqual({ dir: 'packages/x', packages: true, services: true, names: new Set(['@wirehook/core', '@wirehook/client/types']) });
    expect(y?.dir).toBe('packages/y');
    expect(mayImportColumn(table('nothing of ours (published alone)'), ['core'])[0]).toEqual({
      dir: 'packages/x',
      packages: false,
      services: false,
      names: new Set(),
    });
  });

  it('fails on a word it does not know rather than allowing anything', () => {
    expect(() => mayImportColumn(table('core, most things'), ['core'])).toThrow('"most things" in the "may import" column of packages/x');
  });
});
