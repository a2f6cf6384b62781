// `./dev test` runs the suite in two vitest processes side by side (scripts/test-lanes.ts): a
// file in neither lane would never run, one in both would run twice at once.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TEST_LANE_ENV } from '@wirehook/testkit';
import { laneRuns, runLanes, TEST_LANES } from '../../scripts/test-lanes.ts';

/** The test files vitest runs with these arguments, as vitest itself lists them. */
function filesWith(args: readonly string[]): string[] {
  // --json last: it takes a file name when one follows it.
  const out = execFileSync('pnpm', ['exec', 'vitest', 'list', ...args, '--filesOnly', '--json'], { encoding: 'utf8' });
  return (JSON.parse(out) as { file: string }[]).map((entry) => entry.file).sort();
}

describe("./dev test's lanes", () => {
  it('run every test file of the suite exactly once between them', () => {
    const all = filesWith([]);
    const lanes = TEST_LANES.map((lane) => filesWith(lane.args));
    expect(lanes).toHaveLength(2);
    for (const files of lanes) expect(files.length).toBeGreaterThan(0);
    expect([...lanes.flat()].sort()).toEqual(all);
    expect(new Set(lanes.flat()).size).toBe(all.length);
  });

  it('keep the cluster, bench, browser and package-install files together, apart from the rest', () => {
    const [first = [], second = []] = TEST_LANES.map((lane) => filesWith(lane.args));
    expect(first.some((file) => file.includes('/test/cluster/'))).toBe(true);
    expect(first.some((file) => file.includes('/test/bench/'))).toBe(true);
    expect(first.some((file) => file.includes('/test/browser/'))).toBe(true);
    expect(first.some((file) => file.includes('/test/packages/'))).toBe(true);
    expect(first.every((file) => /\/test\/(cluster|bench|browser|packages)\//.test(file))).toBe(true);
    expect(second.some((file) => /\/test\/(cluster|bench|browser|packages)\//.test(file))).toBe(false);
    expect(second.some((file) => file.includes('/test/e2e/'))).toBe(true);
  });
});

describe('laneRuns: the commands', () => {
  it("each lane's vitest with its own report and files, told its number (WIREHOOK_TEST_LANE) for its ports and addresses", () => {
    const runs = laneRuns((lane) => ['exec', 'vitest', 'run', `--outputFile.json=r${lane}.json`], { KEEP: 'yes', [TEST_LANE_ENV]: '9' });
    expect(runs.map((run) => [run.tag, run.command, run.env[TEST_LANE_ENV], run.env['KEEP']])).toEqual([
      ['[1]', 'pnpm', '1', 'yes'],
      ['[2]', 'pnpm', '2', 'yes'],
    ]);
    expect(runs.map((run) => run.args)).toEqual([
      ['exec', 'vitest', 'run', '--outputFile.json=r1.json', ...TEST_LANES[0]!.args],
      ['exec', 'vitest', 'run', '--outputFile.json=r2.json', ...TEST_LANES[1]!.args],
    ]);
  });
});

describe('runLanes: the lanes side by side', () => {
  const node = (code: string, tag: string) => ({ tag, command: process.execPath, args: ['-e', code], env: process.env });

  it("tags every line of each (a last line without its newline too), stdout and stderr apart; each lane's own exit code", async () => {
    const lines: string[] = [];
    const lanes = runLanes(
      [node("process.stdout.write('one\\ntwo'); process.stderr.write('err\\n'); process.exitCode = 3", '[1]'), node("console.log('three')", '[2]')],
      (stream, line) => lines.push(`${stream} ${line}`),
    );
    expect(await lanes.done).toEqual([3, 0]);
    expect(lines.sort()).toEqual(['stderr [1] err', 'stdout [1] one', 'stdout [1] two', 'stdout [2] three'].sort());
  });

  it('a lane killed by a signal is a failure (128 + its number), the other still waited for', async () => {
    const lanes = runLanes([node("process.kill(process.pid, 'SIGKILL')", '[1]'), node('setTimeout(() => {}, 300)', '[2]')], () => {});
    expect(await lanes.done).toEqual([137, 0]);
  });

  it('a stop passed on reaches every lane still running; one that cannot start is a failure', async () => {
    const lines: string[] = [];
    const lanes = runLanes(
      [
        node("process.on('SIGTERM', () => { console.log('stopping'); process.exit(5) }); console.log('up'); setInterval(() => {}, 1000)", '[1]'),
        { tag: '[2]', command: '/nonexistent/vitest', args: [], env: process.env },
      ],
      (_stream, line) => {
        lines.push(line);
        if (line === '[1] up') lanes.signal('SIGTERM');
      },
    );
    expect(await lanes.done).toEqual([5, 1]);
    expect(lines).toContain('[1] stopping');
    expect(lines.some((line) => line.startsWith('[2] could not start /nonexistent/vitest'))).toBe(true);
  });
});
