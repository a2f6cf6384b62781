// What no Wirehook module does as it loads: format through ICU. The first toLocaleString or Intl
// formatter of a process (or thread) costs it ≈ 20 ms of CPU (packages/core/src/thousands.ts says
// how that was measured), and every service paid it at start for a message made at load
// (core's transformation schema, message-intake's limits). Seen in a fresh process that has
// ICU's entry points record their callers before it imports every package's and service's root.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** Every workspace package's and service's root module, as its index.ts names it. */
const entries = ['packages', 'services']
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name, 'src', 'index.ts')))
  .filter((file) => readdirSync(join(file, '..')).includes('index.ts'));

/** The script the fresh process runs: ICU's entry points wrapped to record who called them, then each root imported. */
const script = (files: string[]) => `
const calls = [];
const record = (what) => calls.push(what + ' from ' + (new Error().stack.split('\\n')[3] ?? '?').trim());
for (const [proto, names] of [
  [Number.prototype, ['toLocaleString']],
  [BigInt.prototype, ['toLocaleString']],
  [Date.prototype, ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']],
  [String.prototype, ['localeCompare', 'toLocaleUpperCase', 'toLocaleLowerCase']],
]) {
  for (const name of names) {
    const original = proto[name];
    proto[name] = function (...args) { record(name); return original.apply(this, args); };
  }
}
for (const name of ['NumberFormat', 'DateTimeFormat', 'PluralRules', 'Collator', 'RelativeTimeFormat', 'ListFormat']) {
  Intl[name] = new Proxy(Intl[name], { construct(target, args) { record('Intl.' + name); return Reflect.construct(target, args); } });
}
// The wrapping itself is seen (so an empty record means none was called, not that none was recorded).
(1).toLocaleString('en');
for (const file of ${JSON.stringify(files.map((f) => pathToFileURL(f).href))}) await import(file);
process.stdout.write(JSON.stringify(calls));
`;

it('no package or service formats through ICU as it loads (a recorded call of its own shows the record works)', () => {
  expect(entries.length).toBeGreaterThan(15);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(entries)], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  const calls = JSON.parse(run.stdout) as string[];
  expect(calls[0]).toMatch(/^toLocaleString from /);
  expect(calls.slice(1)).toEqual([]);
});
