// The whole suite runs in two vitest processes side by side, each one file at a time: on the
// 2-core machine this is built on, vitest's default (CPUs − 1 workers) runs one file at a time,
// and the suite took ≈ 25 minutes with the CPUs half idle (most tests wait on timers, child
// processes and sockets). Two lanes rather than `maxWorkers: 2`: with two workers vitest could
// run two cluster files at once, 14 processes each on 2 cores, and their start-up waits would
// race; here the cluster and bench files keep one lane to themselves, one file at a time, and
// the rest (units, e2e, …) run beside them. The browser files join the first lane to even the two:
// their files' test time summed 735 s and 531 s alone (the CI log of 2026-12-01); side by side,
// each file takes ≈ 1.4 × as long, and the second lane also pays most of vitest's start-up per file
// (≈ 250 files against ≈ 35).

/** A vitest process's share of the files: its extra command-line arguments. */
export interface TestLane {
  /** Printed before each of its output lines. */
  readonly tag: string;
  readonly description: string;
  readonly args: readonly string[];
}

/** Folders whose files run in the first lane; every other file runs in the second. */
const FIRST_LANE_DIRS = ['test/cluster', 'test/bench', 'test/browser'] as const;

export const TEST_LANES: readonly TestLane[] = [
  {
    tag: '[1]',
    description: `${FIRST_LANE_DIRS.join(', ')} (many processes or a browser each)`,
    // A filter is a substring of a file's path: the folders' own, with the slash after them.
    args: FIRST_LANE_DIRS.map((dir) => `${dir}/`),
  },
  {
    tag: '[2]',
    description: 'every other test file',
    args: FIRST_LANE_DIRS.flatMap((dir) => ['--exclude', `${dir}/**`]),
  },
];
