// Reads the code references of docs/spec-map.md and checks them against the tree, so the
// map fails a test the moment a file, symbol, constant or test it names moves or changes.
//
// The notation (each reference is one Markdown code span):
//   `path/file.ts`                          a file
//   `path/file.ts#name`, `#Obj.member`      a declaration in it (each dotted part declared there)
//   `path/file.ts#NAME` = `1_000`           (Constant column) an export of that value
//   `path/file.ts#name` ∋ `.max(200)`       (Constant column) a declaration whose text holds it
//   `path/file.test.ts > describe > title`  a test: each part the literal title of an
//                                           it/test/describe call in that file
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** One cell of a map table with the code spans found in it. */
export interface Cell {
  column: string;
  text: string;
}

/** One table row: its cells by column name, and the line it is on (for messages). */
export interface Row {
  line: number;
  cells: Cell[];
}

export type Ref =
  | { kind: 'file'; path: string }
  | { kind: 'symbol'; path: string; symbol: string }
  | { kind: 'value'; path: string; symbol: string; value: string }
  | { kind: 'contains'; path: string; symbol: string; snippet: string }
  | { kind: 'test'; path: string; titles: string[] };

const PATH = String.raw`[\w@.-]+(?:/[\w@.-]+)+\.[a-z]+|[\w-]+\.(?:md|ts|json|yaml|proto)`;
const FILE_RE = new RegExp(`^(${PATH})$`);
const SYMBOL_RE = new RegExp(String.raw`^(${PATH})#([\w$]+(?:\.[\w$]+)*)$`);
const TEST_RE = new RegExp(`^(${PATH}) > (.+)$`);
const SPAN_RE = /`([^`]+)`(?:\s*(=|∋)\s*`([^`]+)`)?/g;

/** The rows of every table in `markdown` whose header has an "Enforced in" column. */
export function mapRows(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const rows: Row[] = [];
  let header: string[] | undefined;
  lines.forEach((line, i) => {
    if (!line.startsWith('|')) {
      header = undefined;
      return;
    }
    const cells = splitRow(line);
    if (header === undefined) {
      header = cells.some((c) => c === 'Enforced in') ? cells : [];
      return;
    }
    if (header.length === 0 || cells.every((c) => /^-+$/.test(c))) return;
    rows.push({ line: i + 1, cells: cells.map((text, k) => ({ column: header![k] ?? '', text })) });
  });
  return rows;
}

function splitRow(line: string): string[] {
  // Pipes inside code spans (`a|b`) do not split cells.
  const cells: string[] = [];
  let current = '';
  let inCode = false;
  for (const ch of line.trim().slice(1, -1)) {
    if (ch === '`') inCode = !inCode;
    if (ch === '|' && !inCode) {
      cells.push(current.trim());
      current = '';
    } else current += ch;
  }
  cells.push(current.trim());
  return cells;
}

/** The references of one cell; code spans that name no path (`limit`, `429`) are not references. */
export function cellRefs(text: string): Ref[] {
  const refs: Ref[] = [];
  for (const m of text.matchAll(SPAN_RE)) {
    const span = m[1]!;
    const op = m[2];
    const operand = m[3];
    const symbol = SYMBOL_RE.exec(span);
    const test = TEST_RE.exec(span);
    if (symbol && op === '=') refs.push({ kind: 'value', path: symbol[1]!, symbol: symbol[2]!, value: operand! });
    else if (symbol && op === '∋') refs.push({ kind: 'contains', path: symbol[1]!, symbol: symbol[2]!, snippet: operand! });
    else if (symbol) refs.push({ kind: 'symbol', path: symbol[1]!, symbol: symbol[2]! });
    else if (test) refs.push({ kind: 'test', path: test[1]!, titles: test[2]!.split(' > ') });
    else if (FILE_RE.test(span)) refs.push({ kind: 'file', path: span });
  }
  return refs;
}

// A scanner of our own rather than a parser: the repository's TypeScript 7 has no JavaScript
// compiler API, and what the map names (declarations, imports, test titles) is plain enough
// in a Biome-formatted code base for regular expressions.
const texts = new Map<string, string>();

/** A file's text without its comment lines and doc blocks (so a comment never declares or imports). */
export function code(root: string, path: string): string {
  let text = texts.get(path);
  if (text === undefined) {
    text = readFileSync(join(root, path), 'utf8')
      .replace(/^\s*\/\*[\s\S]*?\*\/[ \t]*$/gm, '')
      .replace(/^\s*\/\/.*$/gm, '');
    texts.set(path, text);
  }
  return text;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MODIFIERS = String.raw`(?:(?:export|default|declare|abstract|async|static|readonly|private|protected|public|override|get|set)\s+)*`;

/** Where `name` is declared in a file (function, variable, class, type, enum, member, object key), or -1. */
export function declarationIndex(root: string, path: string, name: string): number {
  const n = escapeRegExp(name);
  const patterns = [
    new RegExp(String.raw`^\s*${MODIFIERS}(?:function\*?|const|let|var|class|interface|type|enum|namespace)\s+${n}\b`, 'm'),
    new RegExp(String.raw`^\s*${MODIFIERS}['"]?${n}['"]?\??\s*(?:[(:<]|=(?!=))`, 'm'),
    new RegExp(String.raw`^\s*(?:export\s+)?(?:const|let|var)\s+\{[^}]*\b${n}\b[^}]*\}\s*=`, 'm'),
  ];
  const text = code(root, path);
  for (const re of patterns) {
    const m = re.exec(text);
    // `^\s*` may start on a blank line above (a stripped comment leaves one): skip to the declaration.
    if (m) return m.index + m[0].length - m[0].trimStart().length;
  }
  return -1;
}

/** The text of the declaration of `name`: from it to the next line that starts a top-level statement. */
export function declarationText(root: string, path: string, name: string): string {
  const text = code(root, path);
  const from = declarationIndex(root, path, name);
  if (from < 0) return '';
  const rest = text.slice(from + 1);
  const next = /\n(?=[A-Za-z@])/.exec(rest);
  return text.slice(from, next ? from + 1 + next.index : undefined);
}

/** Names a file imports or re-exports from another module (`import { A, type B as C }` gives A, B, C). */
export function importedNames(root: string, path: string): Set<string> {
  const names = new Set<string>();
  for (const m of code(root, path).matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*['"]/g)) {
    for (const part of m[1]!.split(',')) {
      for (const word of part.replace(/\btype\s+/, '').split(/\s+as\s+/)) if (word.trim()) names.add(word.trim());
    }
  }
  return names;
}

/** Module specifiers a file imports, re-exports or loads with import() (the strings only). */
export function importSpecifiers(text: string): string[] {
  const specs: string[] = [];
  const re = /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*[,)]/g;
  for (const m of text.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

// it('…', …), test.each(…)('…'), it.skipIf(cond)('…'), describe.concurrent('…'): a callee
// of it/test/describe with any chain of members and calls, then a literal first argument.
const TITLE_RE =
  /\b(?:it|test|describe|suite)\b(?:\.[\w$]+|\((?:[^()]|\([^()]*\))*\))*\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|`((?:\\.|[^`\\$])*)`)\s*,/g;

/** The literal titles of it/test/describe calls in a file (a template with \${…} is not literal). */
export function testTitles(root: string, path: string): Set<string> {
  const titles = new Set<string>();
  for (const m of code(root, path).matchAll(TITLE_RE)) {
    titles.add((m[1] ?? m[2] ?? m[3])!.replace(/\\(.)/g, '$1'));
  }
  return titles;
}

/** Reads a value at a dotted path of a module's exports; undefined when any part is missing. */
export function valueAt(module: Record<string, unknown>, symbol: string): unknown {
  let v: unknown = module;
  for (const part of symbol.split('.')) {
    if (v === null || typeof v !== 'object' || !(part in v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * A stated value as the code would hold it: `1_100_000` and `1,100,000` are 1100000, `'60m'`
 * is a string, `[5_000, '1m']` and `{ count: 7 }` are compared as data.
 */
export function statedValue(text: string): unknown {
  if (/^[[{]/.test(text)) {
    const json = text
      .replace(/'([^']*)'/g, '"$1"')
      .replace(/(\d)_(?=\d)/g, '$1')
      .replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":');
    return JSON.parse(json);
  }
  if (/^-?[\d_,]+(\.\d+)?$/.test(text)) return Number(text.replace(/[_,]/g, ''));
  if (text === 'true' || text === 'false') return text === 'true';
  const quoted = /^'(.*)'$/.exec(text);
  return quoted ? quoted[1] : text;
}

/** Problems of the references of `rows` against the tree at `root` (empty: the map is true). */
export async function checkRows(root: string, rows: Row[]): Promise<string[]> {
  const problems: string[] = [];
  for (const row of rows) {
    const at = `spec-map.md:${row.line}`;
    const enforcing = row.cells.filter((c) => c.column === 'Enforced in').flatMap((c) => cellRefs(c.text));
    for (const cell of row.cells) {
      for (const ref of cellRefs(cell.text)) {
        const problem = await checkRef(root, ref, cell.column, enforcing);
        if (problem) problems.push(`${at}: ${problem}`);
      }
    }
  }
  return problems;
}

async function checkRef(root: string, ref: Ref, column: string, enforcing: Ref[]): Promise<string | undefined> {
  if (!existsSync(join(root, ref.path))) return `${ref.path}: no such file`;
  if (ref.kind === 'file') return undefined;
  if (ref.kind === 'test') {
    const titles = testTitles(root, ref.path);
    const missing = ref.titles.filter((t) => !titles.has(t));
    return missing.length ? `${ref.path}: no it/test/describe titled ${missing.map((t) => JSON.stringify(t)).join(', ')}` : undefined;
  }
  const parts = ref.symbol.split('.');
  const undeclared = parts.filter((p) => declarationIndex(root, ref.path, p) < 0);
  if (undeclared.length) return `${ref.path}#${ref.symbol}: ${undeclared.join(', ')} not declared there`;
  if (ref.kind === 'symbol') return undefined;
  if (ref.kind === 'contains') {
    const text = declarationText(root, ref.path, parts[0]!);
    return text.includes(ref.snippet) ? undefined : `${ref.path}#${ref.symbol}: its declaration does not contain ${JSON.stringify(ref.snippet)}`;
  }
  const module = (await import(join(root, ref.path))) as Record<string, unknown>;
  const actual = valueAt(module, ref.symbol);
  const expected = statedValue(ref.value);
  if (!isDeepStrictEqual(actual, expected)) return `${ref.path}#${ref.symbol} is ${JSON.stringify(actual)}, the map says ${JSON.stringify(expected)}`;
  if (column !== 'Constant') return undefined;
  // The enforcing code must use this constant, not a number of its own.
  const name = parts[0]!;
  const users = enforcing.filter(
    (e) =>
      e.kind !== 'test' &&
      existsSync(join(root, e.path)) &&
      (e.path === ref.path ? declarationIndex(root, e.path, name) >= 0 : importedNames(root, e.path).has(name)),
  );
  return users.length ? undefined : `${ref.path}#${ref.symbol}: no file of the row's "Enforced in" imports ${name}`;
}
