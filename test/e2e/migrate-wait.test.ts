// `wirehook migrate` waits for NATS (and the store), bounded by MIGRATE_WAIT_SECONDS: a Job
// started before NATS succeeds once it answers; one whose NATS never answers exits 1 with one
// line naming it. `--store-only` does not wait for NATS at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, startNatsServer, type NatsServer, spawnTestProcess } from '@wirehook/testkit';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-migrate-wait-'));
let nats: NatsServer | undefined;
afterAll(async () => {
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `wirehook migrate` (the image's entry point); resolves with its exit code, stderr and run time. */
function migrate(env: Record<string, string>, args: string[] = [], whileRunning: (stderrSoFar: () => string) => Promise<void> = async () => {}) {
  const started = performance.now();
  const child = spawnTestProcess(process.execPath, [join(root, 'scripts/service.ts'), 'migrate', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, MONGODB_URL: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close': the exit code once stderr has been read to its end (after 'exit' the pipe may hold more).
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return whileRunning(() => stderr).then(async () => ({ code: await exited, stderr, seconds: (performance.now() - started) / 1_000 }));
}

it('NATS never answers: exit 1 once MIGRATE_WAIT_SECONDS has passed, with progress lines and one line naming NATS', async () => {
  const url = `nats://127.0.0.1:${await freePort()}`;
  // 6 s: the wait counts from migrate's start, and a loaded CI machine once spent over 2 of them
  // loading and opening the store, so NATS's first attempt was cut off before its progress line.
  const res = await migrate({ NATS_URL: url, MIGRATE_WAIT_SECONDS: '6' });
  expect(res.code, res.stderr).toBe(1);
  // It gives up rather than waiting on: a bound for a busy machine, far from the 300 s default.
  expect(res.seconds).toBeGreaterThanOrEqual(6);
  expect(res.seconds).toBeLessThan(40);
  const lines = res.stderr.trim().split('\n');
  expect(lines[0]).toBe(`migrate: SQLite in ${dataDir} is current`);
  expect(lines.some((l) => new RegExp(`^migrate: waiting for NATS at ${url} \\(attempt 1, \\d+ s of 6\\)$`).test(l))).toBe(true);
  expect(lines.at(-1)).toMatch(new RegExp(`^migrate: gave up after MIGRATE_WAIT_SECONDS=6: NATS at ${url} did not answer \\(\\d+ attempts; last: .+\\)$`));
  expect(lines.filter((l) => l.includes('gave up'))).toHaveLength(1);
}, 60_000);

it('NATS starts a second after migrate: it waits, then brings the streams up and exits 0', async () => {
  nats = await startNatsServer();
  await nats.kill(); // its port stays ours: restart() brings it back there
  // NATS comes back only once migrate has said it is waiting: a fixed delay raced a slow start
  // (a busy CI machine took over a second to reach NATS, which was then already up).
  const res = await migrate({ NATS_URL: nats.url, MIGRATE_WAIT_SECONDS: '30' }, [], async (stderrSoFar) => {
    const giveUp = Date.now() + 20_000;
    while (!stderrSoFar().includes('migrate: waiting for NATS') && Date.now() < giveUp) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await nats!.restart();
  });
  expect(res.code, res.stderr).toBe(0);
  // Its seconds count from migrate's start, store included (seconds on a loaded machine).
  expect(res.stderr).toMatch(new RegExp(`migrate: waiting for NATS at ${nats.url} \\(attempt 1, \\d+ s of 30\\)`));
  expect(res.stderr).toContain(`migrate: JetStream streams at ${nats.url} are current`);
  expect(res.seconds).toBeLessThan(15);
}, 30_000);

it('--store-only: the store alone, NATS not dialled; an unknown argument is refused', async () => {
  const url = `nats://127.0.0.1:${await freePort()}`;
  const res = await migrate({ NATS_URL: url, MIGRATE_WAIT_SECONDS: '30' }, ['--store-only']);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toBe(`migrate: SQLite in ${dataDir} is current\n`);
  const wrong = await migrate({ NATS_URL: url }, ['--stor-only']);
  expect(wrong).toMatchObject({ code: 2, stderr: 'usage: wirehook migrate [--store-only]\n' });
}, 20_000);

it.each([
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const)(
  'a %s while it waits (a Job’s pod deleted, Ctrl-C): it stops at once, says so, exit %i',
  async (signal, exitCode) => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const child = spawnTestProcess(process.execPath, [join(root, 'scripts/service.ts'), 'migrate'], {
      env: { ...process.env, DATA_DIR: dataDir, MONGODB_URL: '', NATS_URL: url, MIGRATE_WAIT_SECONDS: '300' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    // Its stop listeners are set before it waits for anything: once it says it waits, a signal is heard.
    await eventually(() => expect(stderr).toContain('migrate: waiting for NATS'), 20_000, 20);
    child.kill(signal);
    expect(await closed, stderr).toBe(exitCode);
    expect(stderr.trim().split('\n').at(-1)).toBe(`migrate: stopped by ${signal} before it finished; the next run starts over where it must`);
  },
  30_000,
);
