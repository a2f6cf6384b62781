import { describe, expect, it } from 'vitest';
import { countTests, countTestsWithout, failedTestsIn, slowestFiles, type VitestReport } from '../../scripts/test-counts.ts';

const file = (status: string, ...tests: string[]) => ({ status, assertionResults: tests.map((s) => ({ status: s })) });

describe('the closing line counts tests as vitest does', () => {
  it('one failing test in a file is one failure, not two (the file is not counted again)', () => {
    const report: VitestReport = {
      numPassedTests: 3,
      numFailedTests: 1,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [file('failed', 'passed', 'failed'), file('passed', 'passed', 'passed')],
    };
    expect(countTests(report)).toEqual({ passed: 3, failed: 1, skipped: 0 });
  });

  it('skipped and todo tests are shown', () => {
    const report: VitestReport = {
      numPassedTests: 2,
      numFailedTests: 0,
      numPendingTests: 107,
      numTodoTests: 1,
      testResults: [file('passed', 'passed', 'passed', 'skipped')],
    };
    expect(countTests(report)).toEqual({ passed: 2, failed: 0, skipped: 108 });
  });

  it('a file that failed to load (no tests ran) or whose hook threw counts as one failure', () => {
    const report: VitestReport = {
      numPassedTests: 2,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [file('failed'), file('failed', 'passed', 'passed')],
    };
    expect(countTests(report)).toEqual({ passed: 2, failed: 2, skipped: 0 });
  });
});

describe('a lane counted without a file it lost to a crash (that file runs again apart)', () => {
  it("leaves out the file's own tests, and the one failure its lost worker counted", () => {
    const report: VitestReport = {
      numPassedTests: 4,
      numFailedTests: 0,
      numPendingTests: 1,
      numTodoTests: 0,
      testResults: [
        { name: '/p/a.test.ts', status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }, { status: 'skipped' }] },
        // Two ran before its worker died; the third never ran (in none of the totals).
        { name: '/p/crashed.test.ts', status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'passed' }, { status: 'pending' }] },
      ],
    };
    expect(countTests(report)).toEqual({ passed: 4, failed: 1, skipped: 1 });
    expect(countTestsWithout(report, ['/p/crashed.test.ts'])).toEqual({ passed: 2, failed: 0, skipped: 1 });
    // None of its tests failed before its worker died (one that had would keep the lane failed).
    expect(failedTestsIn(report, ['/p/crashed.test.ts'])).toBe(0);
    const failedFirst = { ...report, testResults: [report.testResults[0]!, { ...report.testResults[1]!, assertionResults: [{ status: 'failed' }] }] };
    expect(failedTestsIn(failedFirst, ['/p/crashed.test.ts'])).toBe(1);
    // Nothing left out of a lane whose files all ran: the same counts as vitest's totals.
    const whole = { ...report, numPendingTests: 1, testResults: [report.testResults[0]!], numPassedTests: 2, numFailedTests: 0 };
    expect(countTestsWithout(whole, [])).toEqual(countTests(whole));
    expect(countTests(whole)).toEqual({ passed: 2, failed: 0, skipped: 1 });
  });

  it('names the slowest files, longest first, relative to the root, by their wall clock (a file without times left out)', () => {
    const timed = (name: string, startTime: number, endTime: number) => ({ ...file('passed', 'passed'), name, startTime, endTime });
    const report: VitestReport = {
      numPassedTests: 4,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        timed('/repo/test/a.test.ts', 1_000, 3_400),
        timed('/repo/test/b.test.ts', 0, 1_265_000),
        { ...file('passed', 'passed'), name: '/repo/test/untimed.test.ts' },
        timed('/elsewhere/c.test.ts', 10, 60_010),
      ],
    };
    expect(slowestFiles(report, 2, '/repo')).toEqual(['1,265 s test/b.test.ts', '60 s /elsewhere/c.test.ts']);
    expect(slowestFiles(report, 8, '/repo')).toEqual(['1,265 s test/b.test.ts', '60 s /elsewhere/c.test.ts', '2 s test/a.test.ts']);
  });
});
