// The whole suite: lint and format check, type-check, then every vitest test. Ends with one plain line
// "N passed, N failed, N skipped" (read by CI) and exits non-zero on any failure or on no test
// at all. The counts are vitest's own test counts; a test file that fails outside its tests
// (it does not load, or a hook throws) adds one failure, since no test of it could report one.
// Every process a test starts is recorded under this run's directory (testkit's
// spawnTestProcess); one still alive after the suite is named, killed, and fails the run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leftoverProcesses, TEST_PROCESSES_DIR_ENV } from '@wirehook/testkit';
import { countTests, type Counts, type VitestReport } from './test-counts.ts';

const args = process.argv.slice(2);
const run = (cmd: string, cmdArgs: string[]) => spawnSync(cmd, cmdArgs, { stdio: 'inherit' }).status ?? 1;

if (args.length === 0) {
  // Lint and format first (Biome, biome.jsonc): a finding fails the run like a failing test.
  console.error('linting and checking the format (biome ci)…');
  if (run('pnpm', ['exec', 'biome', 'ci', '--reporter=summary', '.']) !== 0) {
    console.log('0 passed, 1 failed, 0 skipped');
    console.error('biome ci failed: run `./dev pnpm exec biome check --write .` to format, then fix what it names');
    process.exit(1);
  }
  console.error('type-checking…');
  if (run('pnpm', ['-s', 'typecheck']) !== 0) {
    console.log('0 passed, 1 failed, 0 skipped');
    console.error('type-check failed');
    process.exit(1);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'wirehook-vitest-'));
const report = join(dir, 'report.json');
const processes = join(dir, 'processes');
mkdirSync(processes);
process.env[TEST_PROCESSES_DIR_ENV] = processes;
const code = run('pnpm', ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args]);

let counts: Counts = { passed: 0, failed: 1, skipped: 0 }; // no report: vitest itself failed
try {
  counts = countTests(JSON.parse(readFileSync(report, 'utf8')) as VitestReport);
} catch {
  // keep the one failure
}
const leftovers = leftoverProcesses(processes);
for (const { record, pids } of leftovers) {
  console.error(`left running by ${record.startedBy}: ${record.command} (pid ${pids.join(', ')}); killed`);
}
rmSync(dir, { recursive: true, force: true });
if (leftovers.length > 0) counts = { ...counts, failed: counts.failed + 1 };
console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(code !== 0 || counts.failed > 0 || counts.passed === 0 ? 1 : 0);
