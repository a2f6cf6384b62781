// A service's stop as a process lives it: runService in a real child process, stopped with
// SIGTERM, its component's stop slower or quicker than the deadline the service gave runService.
// Both timers run on the one event loop, so which fires first does not depend on the machine's load.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { eventually, freePort } from '@wirehook/testkit';
import { expect, it } from 'vitest';
import { HELD_AFTER_STOP, STOPPED_LINGER_MS } from './lifecycle.ts';
import { STOPPED_WHILE_STARTING } from './service.ts';
import { SAME_KEYPRESS_MS } from './signal-stop.ts';

const PROBE = join(import.meta.dirname, 'testing', 'slow-stop-process.ts');

/** Starts the probe, waits for its ready line (or `when`), sends SIGTERM; its exit code and the messages it logged. */
/** The probe with `env` on a free metrics port, what it writes to stdout collected (`out()`), and its close. */
async function spawnProbe(env: Record<string, string>) {
  const child = spawn(process.execPath, [PROBE], {
    env: { ...process.env, METRICS_PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, closed, out: () => stdout };
}

async function stopProbe(
  env: Record<string, string>,
  when = '"msg":"slow-stop ready"',
): Promise<{ code: number | null; lines: { msg: string; deadlineMs?: number }[]; said: string[] }> {
  const { child, closed, out } = await spawnProbe(env);
  await eventually(() => expect(out()).toContain(when), 20_000, 50);
  child.kill('SIGTERM');
  const [code] = await closed;
  const lines = out()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; deadlineMs?: number });
  return { code, lines, said: lines.map((l) => l.msg) };
}

/** The probe's log said each of `all` (in any order) and none of `none`. */
function expectSaid(said: string[], { all, none }: { all: string[]; none: string[] }): void {
  expect(said).toEqual(expect.arrayContaining(all));
  for (const msg of none) expect(said).not.toContain(msg);
}

it('a stop slower than the service’s stopDeadlineMs is cut at the deadline: code 1, the deadline logged', async () => {
  const { code, lines, said } = await stopProbe({ STOP_MS: '3000', STOP_DEADLINE_MS: '1000' });
  expect(code).toBe(1);
  expect(lines.map((l) => [l.msg, l.deadlineMs])).toEqual(
    expect.arrayContaining([
      ['shutting down', 1_000],
      ['shutdown deadline passed; exiting', 1_000],
    ]),
  );
  expect(said).not.toContain('stopped');
}, 30_000);

it('a stop within the service’s stopDeadlineMs ends with code 0 and logs the deadline it had', async () => {
  const { code, lines, said } = await stopProbe({ STOP_MS: '1500', STOP_DEADLINE_MS: '4000' });
  expect(code).toBe(0);
  expect(lines.find((l) => l.msg === 'shutting down')?.deadlineMs).toBe(4_000);
  expectSaid(said, { all: ['stopped'], none: ['shutdown deadline passed; exiting'] });
}, 30_000);

it('stopped, a process that something still holds open ends 1 s later with code 0, naming what held it — not at the deadline with 1', async () => {
  const { code, lines, said } = await stopProbe({ STOP_MS: '10', LEAVE_OPEN: '1', STOP_DEADLINE_MS: '10000' });
  expectSaid(said, { all: ['stopped', HELD_AFTER_STOP], none: ['shutdown deadline passed; exiting'] });
  expect((lines.find((l) => l.msg === HELD_AFTER_STOP) as { heldBy?: string[] }).heldBy).toContain('Timeout');
  expect(code).toBe(0);
}, 30_000);

it('held open after its stop, it ends once stdout has taken what it logged: a reader that empties the pipe late gets every line', async () => {
  // 512 KB logged during the stop, the pipe not read until the held-after-stop line is queued behind it: process.exit
  // at that moment would drop what the pipe (64 KB) and the paused reader had not taken, the last lines among them.
  const child = spawn(process.execPath, [PROBE], {
    env: {
      ...process.env,
      METRICS_PORT: String(await freePort()),
      STOP_MS: '10',
      LEAVE_OPEN: '1',
      FLOOD_BYTES: String(512 * 1_024),
      STOP_DEADLINE_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const closed = once(child, 'close');
  await eventually(() => expect(stdout).toContain('"msg":"slow-stop ready"'), 20_000, 50);
  child.stdout.pause();
  // Read again the moment the line is queued (an event, not a poll): the process waits up to 1 s for the drain.
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (stderr.includes('held-after-stop queued')) child.stdout.resume();
  });
  child.kill('SIGTERM');
  const [code] = (await closed) as [number | null];
  // It was queued behind what the pipe had not taken: the case the wait is for.
  expect(Number(/queued \((\d+) bytes unwritten\)/.exec(stderr)?.[1])).toBeGreaterThan(64 * 1_024);
  // Ended once written, not by the fallback (set STOPPED_LINGER_MS after the line, 1 s: a timer may read a ms early).
  expect(Number(/exited (\d+) ms after/.exec(stderr)?.[1])).toBeLessThan(0.9 * STOPPED_LINGER_MS);
  const lines = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; i?: number });
  const flooded = lines.filter((l) => l.msg === 'flood');
  expect(flooded.length).toBeGreaterThan(15_000);
  expect(flooded.at(-1)?.i).toBe(flooded.length - 1);
  expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['stopped', HELD_AFTER_STOP]));
  expect(code).toBe(0);
}, 30_000);

it('without stopDeadlineMs a service stops within 20 s', async () => {
  const { code, lines } = await stopProbe({ STOP_MS: '10' });
  expect(code).toBe(0);
  expect(lines.find((l) => l.msg === 'shutting down')?.deadlineMs).toBe(20_000);
}, 30_000);

it('a SIGTERM while it starts: the start in flight ends, nothing more starts, what started is stopped, and the process ends (0) — never ready', async () => {
  // The deadline 20 s: without the check the third component starts after the stop and keeps the process to it (code 1).
  const { code, said } = await stopProbe({ STOP_DURING_START: '1', STOP_DEADLINE_MS: '20000' }, '"msg":"in-flight starting"');
  expectSaid(said, {
    all: ['first started', 'in-flight starting', 'shutting down', 'in-flight stopped', 'first stopped', 'stopped'],
    none: ['late started', 'slow-stop ready'],
  });
  // Stopped in reverse order, the one whose start was in flight first.
  expect(said.indexOf('in-flight stopped')).toBeLessThan(said.indexOf('first stopped'));
  expect(code).toBe(0);
}, 30_000);

it('a start that fails during the stop does not end the stop: what started is stopped, the failure said, the process ends (0)', async () => {
  const { code, said } = await stopProbe({ STOP_DURING_START: 'fail', STOP_DEADLINE_MS: '20000' }, '"msg":"in-flight starting"');
  expectSaid(said, {
    all: ['shutting down', 'start failed while stopping', 'first stopped', 'stopped'],
    none: ['in-flight stopped', 'late started'],
  });
  expect(code).toBe(0);
}, 30_000);

it('stopping, it is not ready (/readyz 503 naming it; /livez says stopping), and its launcher going meanwhile does not cut the drain (0)', async () => {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [PROBE], {
    // A stop of 15 s that the test ends (SIGUSR2) once it has looked: its checks never race the stop's end.
    env: { ...process.env, METRICS_PORT: String(metricsPort), STOP_MS: '15000', STOP_DEADLINE_MS: '20000', EXIT_WITH_PARENT: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const closed = once(child, 'close');
  const health = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  await eventually(() => expect(stdout).toContain('"msg":"slow-stop ready"'), 20_000, 50);
  expect((await health('/readyz')).status).toBe(200);
  child.kill('SIGTERM');
  await eventually(() => expect(stdout).toContain('"msg":"shutting down"'), 10_000, 20);
  const ready = await health('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body['checks']).toMatchObject({ stopping: expect.stringContaining('stopping') });
  expect((await health('/livez')).body).toMatchObject({ status: 'ok', state: 'stopping' });
  // The launcher gone mid-drain (its end of stdin closed): the stop goes on; a SIGTERM of its own would have ended it.
  expect(child.exitCode).toBeNull();
  child.stdin.end();
  await eventually(() => expect(stdout).toContain('"msg":"stdin closed"'), 10_000, 20);
  child.kill('SIGUSR2');
  const [code] = (await closed) as [number | null];
  expect(code).toBe(0);
  expect(stdout).toContain('"msg":"stopped"');
}, 30_000);

it('a SIGTERM while the service builds its parts: the build hears it, gives up what it holds, and the process ends (0) — never ready', async () => {
  const { code, said } = await stopProbe({ STOP_DURING_BUILD: 'release', STOP_DEADLINE_MS: '20000' }, '"msg":"building"');
  expectSaid(said, {
    all: ['asked to stop while starting; ending the start', 'lease given up', STOPPED_WHILE_STARTING],
    none: ['slow-stop failed to start', 'slow-stop ready'],
  });
  expect(said.indexOf('lease given up')).toBeLessThan(said.indexOf(STOPPED_WHILE_STARTING));
  expect(code).toBe(0);
}, 30_000);

it('a build that finishes after the SIGTERM without hearing it: nothing is started, the process ends (0)', async () => {
  const { code, said } = await stopProbe({ STOP_DURING_BUILD: 'late', STOP_DEADLINE_MS: '20000' }, '"msg":"building"');
  expectSaid(said, { all: [STOPPED_WHILE_STARTING], none: ['late started', 'slow-stop ready'] });
  expect(code).toBe(0);
}, 30_000);

it('a build that never ends after the SIGTERM is cut at the stop deadline: code 1, the deadline logged', async () => {
  const { code, lines, said } = await stopProbe({ STOP_DURING_BUILD: 'ignore', STOP_DEADLINE_MS: '1000' }, '"msg":"building"');
  expect(lines.map((l) => [l.msg, l.deadlineMs])).toEqual(
    expect.arrayContaining([
      ['asked to stop while starting; ending the start', 1_000],
      ['the start did not end by the stop deadline; exiting', 1_000],
    ]),
  );
  expect(said).not.toContain(STOPPED_WHILE_STARTING);
  expect(code).toBe(1);
}, 30_000);

it('a failure of its own after a stop asked during the build is said, not lost; the process still ends as stopped (0)', async () => {
  const { code, lines, said } = await stopProbe({ STOP_DURING_BUILD: 'fail', STOP_DEADLINE_MS: '20000' }, '"msg":"building"');
  const failed = lines.find((l) => l.msg === 'start failed while stopping') as { err?: { message?: string } } | undefined;
  expect(failed?.err?.message).toBe('a newer layout');
  expect(said).toContain(STOPPED_WHILE_STARTING);
  expect(code).toBe(0);
}, 30_000);

it('a stop asked in the very turn the build ends is not lost: nothing starts, the process ends (0)', async () => {
  // The launcher gone (stdin closed) asks the stop, and the build ends on the same close. runService used to send
  // itself a SIGTERM there, which came after the build's listener was removed and before runComponents listened (now one stop, stopOnSignals).
  const child = spawn(process.execPath, [PROBE], {
    env: { ...process.env, METRICS_PORT: String(await freePort()), STOP_DURING_BUILD: 'stdin', EXIT_WITH_PARENT: '1', STOP_DEADLINE_MS: '20000' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const closed = once(child, 'close');
  await eventually(() => expect(stdout).toContain('"msg":"building"'), 20_000, 50);
  child.stdin.end();
  const [code] = (await closed) as [number | null];
  const said = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  expect(said).toContain(STOPPED_WHILE_STARTING);
  expect(said).not.toContain('late started');
  expect(said).not.toContain('slow-stop ready');
  expect(code).toBe(0);
}, 30_000);

/**
 * Stops a ready probe with `signal`, and once its drain has begun (STOP_MS long) and `gapMs` have
 * passed since, sends `signal` again (`gapMs` 0: both at once, before the drain is seen).
 */
async function stopTwice(signal: NodeJS.Signals, env: Record<string, string>, gapMs: number) {
  const { child, closed, out } = await spawnProbe(env);
  await eventually(() => expect(out()).toContain('"msg":"slow-stop ready"'), 20_000, 50);
  child.kill(signal);
  if (gapMs > 0) {
    await eventually(() => expect(out()).toContain('"msg":"shutting down"'), 20_000, 20);
    // The gap counted from the child's own word that it heard the first (it takes the first's time before it says so),
    // not from the kill: a busy machine that delivers the first late would shrink the gap the child measures.
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  child.kill(signal);
  const [code, killedBy] = await closed;
  return { code, killedBy, stdout: out() };
}

it('a second SIGTERM while it drains is no second stop: the drain ends and the process exits 0', async () => {
  const { code, killedBy, stdout } = await stopTwice('SIGTERM', { STOP_MS: '1000', STOP_DEADLINE_MS: '20000' }, SAME_KEYPRESS_MS + 100);
  expect(killedBy).toBeNull();
  expect(code).toBe(0);
  expect(stdout).toContain('"msg":"stopped"');
}, 30_000);

it('a second Ctrl-C while it drains exits at once (130): the person at the terminal means it now', async () => {
  const { code, stdout } = await stopTwice('SIGINT', { STOP_MS: '20000', STOP_DEADLINE_MS: '30000' }, SAME_KEYPRESS_MS + 100);
  expect(stdout).toContain('a second Ctrl-C; exiting now');
  expect(stdout).not.toContain('"msg":"stopped"');
  expect(code).toBe(130);
}, 30_000);

it('two SIGINTs at once are one Ctrl-C (a wrapper forwarding the keypress): the drain goes on and ends (0)', async () => {
  const { code, stdout } = await stopTwice('SIGINT', { STOP_MS: '1000', STOP_DEADLINE_MS: '20000' }, 0);
  expect(stdout).not.toContain('a second Ctrl-C');
  expect(stdout).toContain('"msg":"stopped"');
  expect(code).toBe(0);
}, 30_000);
