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
import { leftoverProcesses, TEST_LANE_ENV, TEST_PROCESSES_DIR_ENV } from '@wirehook/testkit';
import { engineCrashes, onlyKnownCrashes, tellsOfCrash } from './engine-crashes.ts';
import { countTests, countTestsWithout, failedTestsIn, slowestFiles, type Counts, type VitestReport } from './test-counts.ts';
import { laneRuns, runLanes, TEST_LANES } from './test-lanes.ts';

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
const processes = join(dir, 'processes');
mkdirSync(processes);
process.env[TEST_PROCESSES_DIR_ENV] = processes;
const vitestArgs = (report: string, more: readonly string[]) => [
  'exec',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...more,
];

let results: { code: number; counts: Counts }[];
/** Files run again after the engine's known crash, told again beside the closing line. */
const ranAgain: string[] = [];
/** The run was stopped (a signal): nothing is run again. */
let stopped = false;
if (args.length === 0) {
  // The whole suite: its lanes side by side (scripts/test-lanes.ts says why).
  for (const lane of TEST_LANES) console.error(`${lane.tag} ${lane.description}`);
  const reports = TEST_LANES.map((_, i) => join(dir, `report-${i + 1}.json`));
  // Colours as when vitest writes to the terminal itself, when ours is one.
  const colour = process.stdout.isTTY ? { FORCE_COLOR: '1' } : {};
  // The lines that tell of a worker lost to a crash, by lane (scripts/engine-crashes.ts).
  const crashLines: string[][] = TEST_LANES.map(() => []);
  const writeLine = (stream: 'stdout' | 'stderr', line: string) => {
    process[stream].write(`${line}\n`);
    const lane = TEST_LANES.findIndex((l) => line.startsWith(`${l.tag} `));
    if (lane >= 0 && tellsOfCrash(line)) crashLines[lane]!.push(line);
  };
  /** What runs now: both lanes, then a file run again (below). */
  let running = runLanes(
    laneRuns((lane) => vitestArgs(reports[lane - 1]!, []), { ...process.env, ...colour }),
    writeLine,
  );
  // A stop sent to the runner alone is passed on to what runs (the lanes, or a file run again);
  // either way the leftover check and the clean-up below run.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      stopped = true;
      running.signal(signal);
    });
  }
  // Ctrl-C reaches the lanes from the terminal (they share its process group). A file run again
  // is sent it too: one started in the moment after the terminal's signal would miss it.
  let rerunning = false;
  process.on('SIGINT', () => {
    stopped = true;
    if (rerunning) running.signal('SIGINT');
  });
  const codes = await running.done;
  const laneReports = reports.map(readReport);
  results = codes.map((code, i) => ({ code, counts: countsOf(laneReports[i]) }));
  // Where each lane's time went: the suite aims at 15 minutes on two cores, and this says which files to look at.
  for (const [i, lane] of TEST_LANES.entries()) {
    const report = laneReports[i];
    if (report !== undefined)
      console.error(`${lane.tag} slowest files (first test to last, imports and beforeAll not counted): ${slowestFiles(report, 8, process.cwd()).join('; ')}`);
  }
  for (const [i, lane] of TEST_LANES.entries()) {
    const crashes = engineCrashes(crashLines[i]!);
    const report = laneReports[i];
    if (results[i]!.code === 0 || crashes.files.length === 0 || stopped || report === undefined) continue;
    const rest = countTestsWithout(report, crashes.files);
    if (!onlyKnownCrashes(crashes, rest.failed, failedTestsIn(report, crashes.files))) continue;
    // The engine's known crash (nodejs/node#64500, #56312), not a test's failure: the lost files run once more, each in a
    // process of its own (--isolate: a units worker, not isolated, names every file it was given, the passed ones too;
    // their first counts are dropped for the second's).
    console.error(
      `${lane.tag} a worker died of the engine's known crash (V8's jit_page check, nodejs/node#64500, or a segfault, nodejs/node#56312) ` +
        `in ${crashes.files.join(', ')}; running them again, each file in a process of its own`,
    );
    const again = join(dir, `again-${i + 1}.json`);
    // Not a blocking call: a stop sent while it runs is passed on to it at once.
    rerunning = true;
    running = runLanes(
      [
        {
          tag: lane.tag,
          command: 'pnpm',
          args: vitestArgs(again, ['--isolate', ...crashes.files]),
          env: { ...process.env, ...colour, [TEST_LANE_ENV]: String(i + 1) },
        },
      ],
      writeLine,
    );
    const [code = 1] = await running.done;
    const rerun = countsOf(readReport(again));
    const counts = { passed: rest.passed + rerun.passed, failed: rest.failed + rerun.failed, skipped: rest.skipped + rerun.skipped };
    ranAgain.push(`${lane.tag} ${crashes.files.join(', ')}: lost to the engine's known crash, run again apart: ${rerun.passed} passed, ${rerun.failed} failed`);
    results[i] = { code: code === 0 && counts.failed === 0 ? 0 : 1, counts };
  }
} else {
  const report = join(dir, 'report.json');
  const code = run('pnpm', vitestArgs(report, args));
  results = [{ code, counts: countsOf(readReport(report)) }];
}

let counts: Counts = {
  passed: results.reduce((n, r) => n + r.counts.passed, 0),
  failed: results.reduce((n, r) => n + r.counts.failed, 0),
  skipped: results.reduce((n, r) => n + r.counts.skipped, 0),
};
const leftovers = leftoverProcesses(processes);
for (const { record, pids } of leftovers) {
  console.error(`left running by ${record.startedBy}: ${record.command} (pid ${pids.join(', ')}); killed`);
}
rmSync(dir, { recursive: true, force: true });
if (leftovers.length > 0) counts = { ...counts, failed: counts.failed + 1 };
for (const line of ranAgain) console.error(line);
console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(results.some((r) => r.code !== 0) || counts.failed > 0 || counts.passed === 0 ? 1 : 0);

/** A vitest run's counts from its JSON report (readReport's); one failure when there is none (vitest itself failed). */
function countsOf(report: VitestReport | undefined): Counts {
  return report === undefined ? { passed: 0, failed: 1, skipped: 0 } : countTests(report);
}

/** A vitest run's JSON report, or undefined when it wrote none that can be read. */
function readReport(report: string): VitestReport | undefined {
  try {
    return JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  } catch {
    return undefined;
  }
}
