// The closing line's numbers, read from vitest's JSON report.

/** The part of vitest's JSON report the counts come from. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { status: string; assertionResults: { status: string }[] }[];
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
