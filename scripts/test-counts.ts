// The closing line's numbers, read from vitest's JSON report.

/** The part of vitest's JSON report the counts come from. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name?: string; status: string; startTime?: number; endTime?: number; assertionResults: { status: string }[] }[];
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * Tests as vitest counts them: passed, failed and skipped (skipped and todo). A test file
 * that failed with no failing test in it (it did not load, or a hook threw) counts as one
 * failure more, so a broken file can never hide behind a green count.
 */
export function countTests(report: VitestReport): Counts {
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles(report.testResults),
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

/**
 * A lane's counts without the files named (absolute paths, as vitest reports them), from the
 * other files' own tests: once a file it lost to a crash has run again apart, whose counts then
 * take its place. (The lost file's tests that never ran are in none of vitest's totals.)
 */
export function countTestsWithout(report: VitestReport, files: readonly string[]): Counts {
  const left = new Set(files);
  const kept = report.testResults.filter((file) => file.name === undefined || !left.has(file.name));
  const tests = kept.flatMap((file) => file.assertionResults);
  const of = (...statuses: string[]) => tests.filter((test) => statuses.includes(test.status)).length;
  return { passed: of('passed'), failed: of('failed') + brokenFiles(kept), skipped: of('skipped', 'pending', 'todo') };
}

/** Files that failed with no failing test in them (they did not load, or a hook threw): one failure each. */
function brokenFiles(files: VitestReport['testResults']): number {
  return files.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).length;
}

/** Failed tests in the files named: a crashed file's tests that failed before its worker died. */
export function failedTestsIn(report: VitestReport, files: readonly string[]): number {
  const named = new Set(files);
  return report.testResults
    .filter((file) => file.name !== undefined && named.has(file.name))
    .flatMap((file) => file.assertionResults)
    .filter((test) => test.status === 'failed').length;
}

/**
 * The `count` files that took longest, longest first, as "1,234 s" lines (wall clock from the
 * report's start and end times; a file without them is left out): where a lane's time goes.
 */
export function slowestFiles(report: VitestReport, count: number, root: string): string[] {
  return report.testResults
    .filter((file) => file.name !== undefined && file.startTime !== undefined && file.endTime !== undefined)
    .map((file) => ({ name: file.name!.startsWith(`${root}/`) ? file.name!.slice(root.length + 1) : file.name!, ms: file.endTime! - file.startTime! }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((file) => `${Math.round(file.ms / 1000).toLocaleString('en-US')} s ${file.name}`);
}
