// Reads the "may import" column of docs/architecture.md's tree table: for each folder, which of
// our workspace packages its production code may import. The cell's words are a small
// vocabulary, and a word outside it fails the test rather than allowing anything:
//   packages                       every package under packages/
//   every service's public entry   every service under services/
//   core, store, …                 those packages (by folder name)
//   `@wirehook/<name>[/sub]`       that package, or exactly that subpath
//   nothing of ours, npm …         none of ours (npm packages are not checked)
// A parenthesised remark and "imported by tests only" say why or who, and allow nothing.

/** What one folder's production code may import of ours. */
export interface MayImport {
  dir: string; // services/portal/web
  packages: boolean;
  services: boolean;
  /** Package names (`@wirehook/core`) and exact subpath specifiers (`@wirehook/client/types`). */
  names: Set<string>;
}

const REMARKS = [/^nothing of ours$/, /^npm\b/, /^imported by tests only$/];

/** The column's rows for the folders under services/ and packages/, in table order. */
export function mayImportColumn(markdown: string, packageShorts: readonly string[]): MayImport[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => l.startsWith('|') && /\|\s*may import\s*\|/.test(l));
  if (header < 0) throw new Error('docs/architecture.md: no table with a "may import" column');
  const cells = (line: string) =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  const column = cells(lines[header]!).indexOf('may import');
  const rows: MayImport[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    const dir = /^`([^`]+)`/.exec(row[0]!)?.[1] ?? '';
    if (!/^(services|packages)\//.test(dir)) continue;
    // `packages/client`, `packages/receiver` is one row for two folders.
    for (const d of row[0]!.matchAll(/`([^`]+)`/g)) rows.push(parseCell(d[1]!, row[column]!, packageShorts));
  }
  return rows;
}

function parseCell(dir: string, cell: string, packageShorts: readonly string[]): MayImport {
  const allowed: MayImport = { dir, packages: false, services: false, names: new Set() };
  const words = cell
    .replace(/\([^)]*\)/g, '')
    .split(/[;,]/)
    .map((w) => w.trim())
    .filter((w) => w !== '');
  for (const word of words) {
    const name = /^`(@wirehook\/[^`]+)`$/.exec(word)?.[1];
    if (word === 'packages') allowed.packages = true;
    else if (word === "every service's public entry") allowed.services = true;
    else if (name !== undefined) allowed.names.add(name);
    else if (packageShorts.includes(word)) allowed.names.add(`@wirehook/${word}`);
    else if (!REMARKS.some((r) => r.test(word)))
      throw new Error(`docs/architecture.md: "${word}" in the "may import" column of ${dir} is not a word the import-rule test reads`);
  }
  return allowed;
}

/** The row that governs `path`: the longest folder it is in. */
export function rowOf(rows: readonly MayImport[], path: string): MayImport | undefined {
  return rows.filter((r) => path.startsWith(`${r.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0];
}
