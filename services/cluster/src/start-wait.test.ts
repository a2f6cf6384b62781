import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '@wirehook/testkit';
import { OutputTail, StartError, startLive, waitLive } from './start-wait.ts';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/**
 * A node child running `code`, its output kept in a tail as the cluster keeps it. `printed`
 * resolves on its first line of stdout: a test waits on it rather than on a child starting within a
 * wall-clock window (Node's start-up alone can take most of a second on a busy machine).
 */
function child(code: string) {
  const c = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(c);
  const output = new OutputTail();
  let printed!: () => void;
  const firstLine = new Promise<void>((resolve) => {
    printed = resolve;
  });
  // stdout's first line: a warning Node prints on stderr is not the child's own.
  for (const s of [c.stdout, c.stderr])
    createInterface({ input: s }).on('line', (l) => {
      output.push(l);
      if (s === c.stdout) printed();
    });
  return { c, output, printed: firstLine };
}

it('a process that never opens its port: a stalled start, with its state and last lines', async () => {
  const port = await freePort();
  const { c, output, printed } = child(`console.log('importing modules'); setInterval(() => {}, 1000);`);
  await printed;
  const err = await waitLive({ name: 'alerting', service: 'alerting', env: {}, metricsPort: port }, c, 600, output).catch((e) => e);
  expect(err).toBeInstanceOf(StartError);
  expect(err.neverListened).toBe(true);
  expect(err.message).toMatch(/alerting did not report live within 600 ms: not listening yet \(ECONNREFUSED\)/);
  expect(err.message).toMatch(/process \d+ state [A-Z], [\d.]+ s of CPU used/);
  expect(err.message).toContain('| importing modules');
});

it('a process that exits while starting: no second try, and what it printed', async () => {
  const port = await freePort();
  const { c, output } = child(`console.error('alerting cannot start: STORE_URL is not a URL'); process.exit(1);`);
  const err = await waitLive({ name: 'alerting', service: 'alerting', env: {}, metricsPort: port }, c, 10_000, output).catch((e) => e);
  expect(err.neverListened).toBe(false);
  expect(err.message).toMatch(/alerting exited \(code 1\) while starting/);
  expect(err.message).toContain('| alerting cannot start: STORE_URL is not a URL');
});

it('a process answering /livez as itself: live', async () => {
  const port = await freePort();
  const { c, output } = child(
    `require('node:http').createServer((q, r) => r.end(JSON.stringify({ pid: process.pid, state: 'running' }))).listen(${port}, '127.0.0.1');`,
  );
  await expect(waitLive({ name: 'x', service: 'x', env: {}, metricsPort: port }, c, 10_000, output)).resolves.toBeUndefined();
});

it('a process answering /livez as itself but stopping (told to stop while it started), or still starting: not live, and which said', async () => {
  for (const [state, said] of [
    ['stopping', 'stopping (told to stop while it started)'],
    ['starting', 'still starting (waiting for a dependency'],
  ] as const) {
    const port = await freePort();
    const answer = `r.end(JSON.stringify({ pid: process.pid, state: '${state}' }))`;
    const { c, output, printed } = child(
      `require('node:http').createServer((q, r) => ${answer}).listen(${port}, '127.0.0.1', () => console.log('listening'));`,
    );
    await printed;
    const err = await waitLive({ name: 'alerting', service: 'alerting', env: {}, metricsPort: port }, c, 600, output).catch((e) => e);
    expect(err).toBeInstanceOf(StartError);
    expect(err.neverListened).toBe(false);
    expect(err.message).toContain(`alerting did not report live within 600 ms: ${said}`);
  }
});

/** A child answering /livez as itself on `port`. */
const liveOn = (port: number) =>
  `require('node:http').createServer((q, r) => r.end(JSON.stringify({ pid: process.pid, state: 'running' }))).listen(${port}, '127.0.0.1');`;

it('startLive: a start that stalls before opening its port is killed and started once more, and said', async () => {
  const port = await freePort();
  const spec = { name: 'alerting', service: 'alerting', env: {}, metricsPort: port };
  // The second process is started ahead and listens once spawned (a line on its stdin): the
  // 600 ms window is the stalled first one's alone, not Node's start-up on a busy machine.
  const second = child(`console.log('loaded'); process.stdin.once('data', () => { ${liveOn(port)} });`);
  await second.printed;
  const first = child('setInterval(() => {}, 1000);');
  let spawns = 0;
  const said: string[] = [];
  await startLive(spec, 600, {
    spawn: () => {
      spawns++;
      if (spawns === 1) return { child: first.c, output: first.output };
      second.c.stdin!.write('listen\n');
      return { child: second.c, output: second.output };
    },
    kill: async () => {
      first.c.kill('SIGKILL');
    },
    retrying: (err) => said.push(err.message),
  });
  expect(spawns).toBe(2);
  expect(first.c.signalCode ?? (await new Promise((resolve) => first.c.once('exit', (_code, signal) => resolve(signal))))).toBe('SIGKILL');
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/alerting did not report live within 600 ms: not listening yet/);
});

it('startLive: a process that accepts but does not answer in time is not started again (it listens: a slow step, not a stall)', async () => {
  const port = await freePort();
  const spec = { name: 'gateway', service: 'gateway', env: {}, metricsPort: port };
  // Accepts and never answers: the /livez request times out. Listening before the wait starts,
  // so the 1.5 s bounds the answers, not Node's start-up.
  const { c, output, printed } = child(`require('node:net').createServer(() => {}).listen(${port}, '127.0.0.1', () => console.log('listening'));`);
  await printed;
  let spawns = 0;
  const err = await startLive(spec, 1_500, {
    spawn: () => {
      spawns++;
      return { child: c, output };
    },
    kill: async () => {},
    retrying: () => {},
  }).catch((e) => e);
  expect(spawns).toBe(1);
  expect(err).toBeInstanceOf(StartError);
  expect(err.message).toMatch(/accepted but did not answer within/);
});

it("a metrics port on the Fetch standard's bad-port list (10080) is waited on like any: live", async () => {
  // fetch refuses 10080 ("fetch failed": bad port); a run of metrics ports from METRICS_PORT can land on it.
  const port = 10_080;
  // Nothing here binds 10080 (testkit draws no port run holding it): taken, this machine needs a look.
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', resolve)).catch((err: Error) => {
    throw new Error(`port ${port} is taken on this machine, which this test needs free: ${err.message}`);
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const { c, output } = child(liveOn(port));
  await expect(waitLive({ name: 'x', service: 'x', env: {}, metricsPort: port }, c, 10_000, output)).resolves.toBeUndefined();
});

it('a port that answers a status line, then cuts its body off or sends megabytes, has answered: not a stalled start, no crash', async () => {
  for (const server of [
    // Headers, then the connection reset.
    `res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"pid":'); setTimeout(() => res.socket.destroy(), 20);`,
    // A body far past the probe's 64 KiB.
    `res.writeHead(200); const chunk = 'x'.repeat(65536); (function more() { if (res.write(chunk)) setImmediate(more); else res.once('drain', more); })();`,
  ]) {
    const port = await freePort();
    const { c, output, printed } = child(
      `require('node:http').createServer((req, res) => { ${server} }).listen(${port}, '127.0.0.1', () => console.log('listening'));`,
    );
    // Listening before the wait starts: its deadline then bounds only the answers, not the child's start.
    await printed;
    const err = await waitLive({ name: 'x', service: 'x', env: {}, metricsPort: port }, c, 1_500, output).catch((e) => e);
    expect(err).toBeInstanceOf(StartError);
    expect(err.neverListened).toBe(false);
    expect(err.message).toContain(`port ${port} answers, but from another process (pid unknown)`);
  }
});
