// vitest.config.ts's two projects: the packages' and services' own tests share one process and its
// loaded modules (not isolated: half the CPU they cost isolated), except those that mock a module,
// which need it loaded fresh; every file of test/ runs in a process of its own.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';

const root = new URL('../..', import.meta.url).pathname;

describe('the test projects', () => {
  it('runs the units together, not isolated; the files that mock a module and those of test/ each alone', () => {
    const listed = JSON.parse(execFileSync('pnpm', ['exec', 'vitest', 'list', '--filesOnly', '--json'], { encoding: 'utf8' })) as {
      file: string;
      projectName: string;
    }[];
    const project = new Map(listed.map((entry) => [relative(root, entry.file), entry.projectName]));
    expect(project.size).toBe(listed.length);
    let mocking = 0;
    for (const [file, name] of project) {
      const unit = /^(packages|services)\/[^/]+\/src\//.test(file);
      const mocks = readFileSync(`${root}${file}`, 'utf8').includes('vi.mock(');
      if (unit && mocks) mocking++;
      expect(name, file).toBe(unit && !mocks ? 'units' : 'isolated');
    }
    // Both kinds are there: this file itself (test/), a unit, and a unit that mocks (watchdog-fallback.test.ts).
    expect(project.get('test/scripts/test-projects.test.ts')).toBe('isolated');
    expect(project.get('packages/core/src/ids.test.ts')).toBe('units');
    expect(project.get('packages/transform/src/watchdog-fallback.test.ts')).toBe('isolated');
    expect(mocking).toBeGreaterThan(0);

    const projects = config.test?.projects as { test: { name: string; isolate?: boolean } }[];
    expect(projects.map((p) => [p.test.name, p.test.isolate])).toEqual([
      ['units', false],
      ['isolated', undefined],
    ]);
  });
});
