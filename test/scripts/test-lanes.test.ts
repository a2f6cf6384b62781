// `./dev test` runs the suite in two vitest processes side by side (scripts/test-lanes.ts): a
// file in neither lane would never run, one in both would run twice at once.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TEST_LANES } from '../../scripts/test-lanes.ts';

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

  it('keep the cluster, bench and browser files together, apart from the rest', () => {
    const [first = [], second = []] = TEST_LANES.map((lane) => filesWith(lane.args));
    expect(first.some((file) => file.includes('/test/cluster/'))).toBe(true);
    expect(first.some((file) => file.includes('/test/bench/'))).toBe(true);
    expect(first.some((file) => file.includes('/test/browser/'))).toBe(true);
    expect(first.every((file) => /\/test\/(cluster|bench|browser)\//.test(file))).toBe(true);
    expect(second.some((file) => /\/test\/(cluster|bench|browser)\//.test(file))).toBe(false);
    expect(second.some((file) => file.includes('/test/e2e/'))).toBe(true);
  });
});
