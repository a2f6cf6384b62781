// The closing line's numbers, read from vitest's JSON report.

/** The part of vitest's JSON report the counts come from. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name?: string; status: string; assertionResults: { status: string }[] }[];
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
  const brokenFiles = report.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).length;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

/**
 * countTests without the files named (absolute paths, as vitest reports them): a lane's counts
 * once a file it lost to a crash has run again apart, whose own counts then take its place.
 */
export function countTestsWithout(report: VitestReport, files: readonly string[]): Counts {
  const all = countTests(report);
  const left = new Set(files);
  for (const file of report.testResults.filter((f) => f.name !== undefined && left.has(f.name))) {
    const of = (...statuses: string[]) => file.assertionResults.filter((test) => statuses.includes(test.status)).length;
    const broken = file.status === 'failed' && of('failed') === 0 ? 1 : 0;
    all.passed -= of('passed');
    all.failed -= of('failed') + broken;
    all.skipped -= of('skipped', 'pending', 'todo');
  }
  return all;
}
