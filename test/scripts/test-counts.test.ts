import { describe, expect, it } from 'vitest';
import { countTests, countTestsWithout, type VitestReport } from '../../scripts/test-counts.ts';

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
      numPassedTests: 5,
      numFailedTests: 0,
      numPendingTests: 1,
      numTodoTests: 0,
      testResults: [
        { name: '/p/a.test.ts', status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }, { status: 'skipped' }] },
        { name: '/p/crashed.test.ts', status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'passed' }, { status: 'passed' }] },
      ],
    };
    expect(countTests(report)).toEqual({ passed: 5, failed: 1, skipped: 1 });
    expect(countTestsWithout(report, ['/p/crashed.test.ts'])).toEqual({ passed: 2, failed: 0, skipped: 1 });
    expect(countTestsWithout(report, [])).toEqual(countTests(report));
  });
});
