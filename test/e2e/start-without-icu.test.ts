// What no Wirehook module does as it loads: format through ICU. The first toLocaleString or Intl
// formatter of a process (or thread) costs it ≈ 20 ms of CPU (packages/core/src/thousands.ts says
// how that was measured), and every service paid it at start for a message made at load
// (core's transformation schema, message-intake's limits). Seen in a fresh process that has
// ICU's entry points record their callers before it imports every module of every package and
// service. (The threads' entry modules need their thread's data to load: thread-imports.test.ts
// records ICU in embedded mode's real threads, and the rest of each process, as it sends.)
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { icuRecorder } from '../support/icu-recorder.ts';

const root = join(import.meta.dirname, '..', '..');
/** Modules that load only inside their worker thread (they read its workerData as they load). */
const THREAD_ENTRIES = ['packages/egress/src/egress-worker.ts', 'packages/store/src/sqlite/store-worker.ts', 'packages/transform/src/sandbox-worker.ts'];
/** Every module of the packages and services but their tests and test helpers, the programs (main.ts runs one) and the thread entries. */
const modules = globSync(['packages/*/src/**/*.ts', 'services/*/src/**/*.ts'], { cwd: root })
  .filter((file) => !/\.test\.ts$|\.d\.ts$|\/testing\/|\/main\.ts$/.test(file) && !THREAD_ENTRIES.includes(file))
  .sort();

it('no module of a package or service formats through ICU as it loads (every entry point wrapped is seen to record)', () => {
  // 471 when written: a glob that matched nothing would pass with nothing imported.
  expect(modules.length).toBeGreaterThan(400);
  const urls = modules.map((file) => pathToFileURL(join(root, file)).href);
  const script = `const icuCalls = [];
${icuRecorder('(line) => icuCalls.push(line)')}
for (const url of ${JSON.stringify(urls)}) await import(url);
process.stdout.write(JSON.stringify({ icuSelfCheck, icuCalls }));
`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 90_000 });
  expect(run.status, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ icuSelfCheck: 'recorded', icuCalls: [] });
}, 120_000);
