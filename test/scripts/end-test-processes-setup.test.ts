// The suite's setup file (test/support/end-test-processes.ts) imports the process registry by
// its path, not through @wirehook/testkit's index (which costs every test file its tracing and
// receiver imports). It ends a file's processes only if both names load one module: one
// registry of the processes spawned through the index.
import * as viaIndex from '@wirehook/testkit';
import { describe, expect, it } from 'vitest';
import * as byPath from '../../packages/testkit/src/servers/test-processes.ts';

describe('the setup file’s process registry', () => {
  it('is the one @wirehook/testkit spawns into (the same module, not a copy)', async () => {
    expect(byPath.endTestProcesses).toBe(viaIndex.endTestProcesses);
    expect(byPath.spawnTestProcess).toBe(viaIndex.spawnTestProcess);
    // And it ends what the index spawned: a sleeping child, SIGKILLed by the path's endTestProcesses.
    const child = viaIndex.spawnTestProcess('sleep', ['60']);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    byPath.endTestProcesses();
    expect(await exited).toBe('SIGKILL');
  });
});
