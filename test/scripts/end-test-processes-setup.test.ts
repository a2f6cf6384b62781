// The suite's setup file (test/support/end-test-processes.ts) imports the process registry by
// its path, not through @wirehook/testkit's index (which costs every test file its tracing and
// receiver imports). It ends a file's processes only if both names load one module: one
// registry of the processes spawned through the index.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as viaIndex from '@wirehook/testkit';
import { describe, expect, it } from 'vitest';

const setupFile = join(import.meta.dirname, '..', 'support', 'end-test-processes.ts');

describe('the setup file’s process registry', () => {
  it('is the one @wirehook/testkit spawns into: the module the setup file names, not a copy', async () => {
    // What the setup file itself imports endTestProcesses from, resolved as it would be.
    const specifier = /import \{ endTestProcesses \} from '([^']+)';/.exec(readFileSync(setupFile, 'utf8'))?.[1];
    expect(specifier, 'the setup file imports endTestProcesses').toBeDefined();
    const byPath = (await import(specifier!.startsWith('.') ? join(dirname(setupFile), specifier!) : specifier!)) as typeof viaIndex;
    expect(byPath.endTestProcesses).toBe(viaIndex.endTestProcesses);
    // And it ends what the index spawned: a sleeping child, SIGKILLed by the setup's endTestProcesses.
    const child = viaIndex.spawnTestProcess('sleep', ['60']);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    byPath.endTestProcesses();
    expect(await exited).toBe('SIGKILL');
  });
});
