// vitest.config.ts's two projects: the packages' and services' own tests share one process and its
// loaded modules (not isolated: about half the CPU they cost isolated), except those that mock a
// module or reset the registry, which need a process of their own; every file of test/ has one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';
import { needsOwnProcess } from '../support/test-isolation.ts';

const root = new URL('../..', import.meta.url).pathname;

describe('the test projects', () => {
  it('knows a file that mocks a module or resets the registry, however vitest spells it', () => {
    for (const source of [
      "vi.mock('./thread-cpu.ts', async () => ({}))",
      "vi.mock<typeof import('./a.ts')>('./a.ts')",
      "vi.doMock('./a.ts', () => ({}))",
      "vi.unmock('./a.ts')",
      "vi.doUnmock('./a.ts')",
      'vi.resetModules()',
      "vitest.mock('./a.ts')",
      "vi\n  .mock('./a.ts')",
      "vi . mock ('./a.ts')",
    ]) {
      expect(needsOwnProcess(source), source).toBe(true);
    }
    for (const source of [
      "vi.fn(() => 'mock')",
      'const mock = vi.fn(); mock()',
      'vi.spyOn(console, "warn")',
      'vi.mocked(f)',
      'vi.resetAllMocks()',
      '// a vi.mock',
    ]) {
      expect(needsOwnProcess(source), source).toBe(false);
    }
  });

  it('runs the units together, not isolated; those that need a process and those of test/ each alone', () => {
    const listed = JSON.parse(execFileSync('pnpm', ['exec', 'vitest', 'list', '--filesOnly', '--json'], { encoding: 'utf8' })) as {
      file: string;
      projectName: string;
    }[];
    const project = new Map(listed.map((entry) => [relative(root, entry.file), entry.projectName]));
    expect(project.size).toBe(listed.length);
    let ownProcess = 0;
    for (const [file, name] of project) {
      const unit = /^(packages|services)\/[^/]+\/src\//.test(file);
      const needs = needsOwnProcess(readFileSync(`${root}${file}`, 'utf8'));
      if (unit && needs) ownProcess++;
      expect(name, file).toBe(unit && !needs ? 'units' : 'isolated');
    }
    // Each kind is there: this file (test/), a unit, one that mocks and one that resets the registry.
    expect(project.get('test/scripts/test-projects.test.ts')).toBe('isolated');
    expect(project.get('packages/core/src/ids.test.ts')).toBe('units');
    expect(project.get('packages/transform/src/watchdog-fallback.test.ts')).toBe('isolated');
    expect(project.get('packages/testkit/src/servers/free-port.test.ts')).toBe('isolated');
    expect(ownProcess).toBeGreaterThan(1);

    const projects = config.test?.projects as { test: { name: string; isolate?: boolean } }[];
    expect(projects.map((p) => [p.test.name, p.test.isolate])).toEqual([
      ['units', false],
      ['isolated', undefined],
    ]);
  });
});
