// Finds import circles among the repository's TypeScript files: a graph of every relative and
// `@wirehook/<name>` import (type-only ones too: `import type` ties two files as tightly for a
// reader, and a later value import would turn it into a load-order bug), then Tarjan's strongly
// connected components. The graph is read with the import-rule test's regex scanner: the
// repository's TypeScript 7 has no compiler API (no `ts.preProcessFile`), and madge and
// dependency-cruiser parse TypeScript through that API; this reads 800 files in well under a second.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { importSpecifiers } from './doc-refs.ts';

const SKIP = new Set(['node_modules', 'dist', 'gen', '.vite', '.tools', '.git', 'coverage']);

/** Every TypeScript file under `dir` (repository-relative, `/`-separated), generated code and builds left out. */
export function typeScriptFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir))) {
    if (SKIP.has(entry) || entry.startsWith('.')) continue;
    const path = dir === '' ? entry : `${dir}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) out.push(...typeScriptFiles(root, path));
    else if (/\.(m?ts|tsx)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `@wirehook/<name>[/sub]` → the file its package.json `exports` names, for every workspace package. */
export function workspaceEntries(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const kind of ['packages', 'services'].filter((k) => existsSync(join(root, k)))) {
    for (const short of readdirSync(join(root, kind))) {
      const pkgPath = join(root, kind, short, 'package.json');
      if (!existsSync(pkgPath)) continue;
      const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name: string; exports?: Record<string, unknown> | string };
      const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
      for (const [sub, target] of Object.entries(exports)) {
        const file =
          typeof target === 'string' ? target : ((target as { import?: string; default?: string }).import ?? (target as { default?: string }).default);
        if (typeof file !== 'string' || !/\.(m?ts|tsx)$/.test(file)) continue;
        entries.set(sub === '.' ? pkg.name : `${pkg.name}${sub.slice(1)}`, `${kind}/${short}/${file.replace(/^\.\//, '')}`);
      }
    }
  }
  return entries;
}

/** Strips comment lines and doc blocks, so an example in a comment is not an import. */
function code(text: string): string {
  return text.replace(/^\s*\/\*[\s\S]*?\*\/[ \t]*$/gm, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The file an import specifier of `from` names, if it is one of `files`. */
function target(from: string, spec: string, files: Set<string>, entries: Map<string, string>): string | undefined {
  if (spec.startsWith('@wirehook/')) return entries.get(spec);
  if (!spec.startsWith('.')) return undefined;
  const path = posix.join(posix.dirname(from), spec);
  const base = path.replace(/\.js$/, '');
  return [path, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((p) => files.has(p));
}

/** File → the files it imports. */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const entries = workspaceEntries(root);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const specs = importSpecifiers(code(readFileSync(join(root, file), 'utf8')));
    const to = specs.map((s) => target(file, s, known, entries)).filter((t): t is string => t !== undefined && t !== file);
    graph.set(file, [...new Set(to)]);
  }
  return graph;
}

/** The circles of a graph: each strongly connected component of more than one file, its files sorted (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
