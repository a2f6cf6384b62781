// The check at the end of `./dev test` (scripts/run-tests.ts): a process recorded the way
// spawnTestProcess records one, detached from the test and still alive, is found, named and
// killed; with its group, also when only a grandchild is left in it. Ended ones are not named.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, leftoverProcesses, livingPids, writeProcessRecord } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'wirehook-leftovers-'));
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ended, as the check should have done
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A detached process group running `script` in sh, left to run on its own, recorded in `dir`. */
function leaveRunning(script: string, command: string) {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  const pid = child.pid!;
  started.push(pid);
  writeProcessRecord(dir, { pid, group: true, command, startedBy: 'leftover-processes.test.ts' });
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { pid, exited };
}

it('names and kills a recorded process left running, and its group once only a grandchild is left; not one that ended', async () => {
  const left = leaveRunning('exec sleep 300', 'sleep 300');
  // The leader exits at once; the sleep it started in the background stays in its group.
  const orphaning = leaveRunning('sleep 301 & echo', 'orphaning');
  await orphaning.exited;
  const ended = leaveRunning('true', 'ended');
  await ended.exited;
  await eventually(() => expect(livingPids({ pid: orphaning.pid, group: true })).toHaveLength(1));

  const found = leftoverProcesses(dir);

  expect(found.map(({ record }) => record.command).sort()).toEqual(['orphaning', 'sleep 300']);
  expect(found.find(({ record }) => record.command === 'sleep 300')?.pids).toEqual([left.pid]);
  expect(found.find(({ record }) => record.command === 'orphaning')?.pids).not.toContain(orphaning.pid);
  expect(await left.exited).toBe('SIGKILL');
  await eventually(() => expect(livingPids({ pid: orphaning.pid, group: true })).toEqual([]));
  expect(leftoverProcesses(dir)).toEqual([]);
});
