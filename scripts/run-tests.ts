// The whole suite: type-check, then every vitest test. Ends with one plain line
// "N passed, N failed" (read by CI) and exits non-zero on any failure or on no test at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const run = (cmd: string, cmdArgs: string[]) => spawnSync(cmd, cmdArgs, { stdio: 'inherit' }).status ?? 1;

if (args.length === 0) {
  console.error('type-checking…');
  if (run('pnpm', ['-s', 'typecheck']) !== 0) {
    console.log('0 passed, 1 failed');
    console.error('type-check failed');
    process.exit(1);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'wirehook-vitest-'));
const report = join(dir, 'report.json');
const code = run('pnpm', ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args]);

let passed = 0;
let failed = 0;
try {
  const json = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numFailedTestSuites: number };
  passed = json.numPassedTests;
  failed = json.numFailedTests + json.numFailedTestSuites;
} catch {
  failed = 1; // no report: vitest itself failed
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
