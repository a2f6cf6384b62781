// The whole suite runs in two vitest processes side by side, each one file at a time: on the
// 2-core machine this is built on, vitest's default (CPUs − 1 workers) runs one file at a time,
// and the suite took ≈ 25 minutes with the CPUs half idle (most tests wait on timers, child
// processes and sockets). Two lanes rather than `maxWorkers: 2`: with two workers vitest could
// run two cluster files at once, 14 processes each on 2 cores, and their start-up waits would
// race; here the cluster and bench files keep one lane to themselves, one file at a time, and
// the rest (units, e2e, …) run beside them. The browser files join the first lane to even the two:
// their files' test time summed 735 s and 531 s alone (the CI log of 2026-12-01); side by side,
// each file takes ≈ 1.4 × as long, and the second lane also pays most of vitest's start-up per file
// (≈ 250 files against ≈ 35). The package-install files followed (2026-12-02: the lanes ran 937 and
// 1,031 s, the install files ≈ 70 s of the second's). Moved back on 2026-12-04, once the units shared
// a process (vitest.config.ts: the lanes ran 1,283 and 1,122 s), they gained nothing (1,302 and 1,295 s):
// once the second lane ends, the first's processes have both cores. Moved once more on 2026-12-05 (the lanes
// 941 and 883 s): 897 and 919 s, but beside the install files' npm and pnpm runs a cluster test's NATS restart
// answered a burst's sender 503 (intake past the gateway's deadline) where nine runs before had passed: back here.
// That 503's words ("MessageIntake is unavailable", not "did not answer within") are a failed transport's, most
// likely grpc-js failing a send draining on a connection message-intake had just ended (grpc/grpc-node#3068, patched
// in patches/: packages/rpc/src/grpc-connection-age.test.ts), not the lanes. Moved once more with it patched (the
// forty-fourth session), the clean-clone run passed and ended its lanes at 971 and 1,001 s, against 974 and 913 s the
// run before and 1,018 and 988 s the run after, both with them here (the install files took 77 s in the second lane,
// beside the cluster files, against 45 s here): no gain the machine's hour does not hide, so here they stay.

import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { TEST_LANE_ENV } from '@wirehook/testkit';

/** A vitest process's share of the files: its extra command-line arguments. */
export interface TestLane {
  /** Printed before each of its output lines. */
  readonly tag: string;
  readonly description: string;
  readonly args: readonly string[];
}

/** Folders whose files run in the first lane; every other file runs in the second. */
const FIRST_LANE_DIRS = ['test/cluster', 'test/bench', 'test/browser', 'test/packages'] as const;

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

/**
 * The lanes' vitest commands: `vitestArgs(lane)` (lane 1 or 2) gives the arguments every lane
 * takes, with that lane's JSON report; the lane's own files follow. Each lane is told its number
 * in TEST_LANE_ENV (testkit's testLane(): its ports and receiver addresses apart from the other's).
 */
export function laneRuns(vitestArgs: (lane: number) => readonly string[], env: NodeJS.ProcessEnv): LaneRun[] {
  return TEST_LANES.map((lane, i) => ({
    tag: lane.tag,
    command: 'pnpm',
    args: [...vitestArgs(i + 1), ...lane.args],
    env: { ...env, [TEST_LANE_ENV]: String(i + 1) },
  }));
}

/** A lane's command as run: each line it prints (stdout and stderr) goes out after `tag`. */
export interface LaneRun {
  readonly tag: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export interface RunningLanes {
  /** Each lane's exit code, in order, once all have ended (a lane ended by a signal: 128 + its number, or 1). */
  readonly done: Promise<number[]>;
  /** Sends `signal` to every lane still running (pnpm passes it on to vitest). */
  signal(signal: NodeJS.Signals): void;
}

/** Starts the lanes side by side, their lines tagged, written with `write` (stdout or stderr). */
export function runLanes(lanes: readonly LaneRun[], write: (stream: 'stdout' | 'stderr', line: string) => void): RunningLanes {
  const children = lanes.map((lane) => {
    // In the runner's process group: the terminal's Ctrl-C and a kill of the whole group reach
    // the lanes (and their workers) as they reached one vitest.
    const child = spawn(lane.command, [...lane.args], { stdio: ['ignore', 'pipe', 'pipe'], env: lane.env });
    for (const stream of ['stdout', 'stderr'] as const) {
      createInterface({ input: child[stream], crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => write(stream, `${lane.tag} ${line}`));
    }
    const code = new Promise<number>((resolve) => {
      child.once('error', (err) => {
        write('stderr', `${lane.tag} could not start ${lane.command}: ${err.message}`);
        resolve(1);
      });
      // 'close': its output read to the end. A signal's number as a shell reports it.
      child.once('close', (exit, signal) => resolve(exit ?? (signal ? 128 + constants.signals[signal] : 1)));
    });
    return { child, code };
  });
  return {
    done: Promise.all(children.map((c) => c.code)),
    signal(signal) {
      for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
