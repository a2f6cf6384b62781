// How the launcher starts a cluster's services (startInOrder): message-intake alone, then the
// rest side by side, each failure named. Every service here is a real node process started and
// waited for as the launcher does (startLive): a tiny script that answers /livez, or exits.
// And how it stops one (stopChild): its output read to the end, within bounds.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '@wirehook/testkit';
import { OUTPUT_AFTER_EXIT_MS, type ServiceSpec, startInOrder, stopChild } from './cluster.ts';
import { eachLine } from './output-lines.ts';
import { OutputTail, StartError, startLive } from './start-wait.ts';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A service that answers /livez as itself, or one that says why it cannot start and exits 1. */
type Script = 'live' | 'fails';

async function specOf(name: string): Promise<ServiceSpec> {
  return { name, service: name, env: {}, metricsPort: await freePort() };
}

/**
 * A launch as the cluster's (startLive over a spawned process), running each spec's script,
 * writing `start <name>` and `end <name>` to `log` as each launch begins and settles.
 */
function launcher(scripts: Record<string, Script>, log: string[]) {
  return async (spec: ServiceSpec) => {
    log.push(`start ${spec.name}`);
    const code =
      scripts[spec.name] === 'live'
        ? `require('node:http').createServer((q, r) => r.end(JSON.stringify({ pid: process.pid, state: 'running' }))).listen(${spec.metricsPort}, '127.0.0.1');`
        : `console.error('${spec.name} cannot start: on purpose'); process.exit(1);`;
    try {
      await startLive(spec, 20_000, {
        spawn: () => {
          const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
          children.push(child);
          const output = new OutputTail();
          for (const s of [child.stdout, child.stderr]) createInterface({ input: s }).on('line', (l) => output.push(l));
          return { child, output };
        },
        kill: async () => {},
        retrying: () => {},
      });
    } finally {
      log.push(`end ${spec.name}`);
    }
  };
}

describe('starting a cluster', () => {
  it('starts message-intake alone, then the rest side by side; two failing are both named, once every start has settled', async () => {
    const specs = await Promise.all(['message-intake', 'dispatcher-1', 'egress-relay', 'gateway'].map(specOf));
    const log: string[] = [];
    const launch = launcher({ 'message-intake': 'live', 'dispatcher-1': 'fails', 'egress-relay': 'live', gateway: 'fails' }, log);
    const err = await startInOrder(specs, launch).catch((e: unknown) => e);
    // message-intake started and live before any other began; the others all begun before any settled.
    expect(log.slice(0, 5)).toEqual(['start message-intake', 'end message-intake', 'start dispatcher-1', 'start egress-relay', 'start gateway']);
    // Thrown only once every start had settled (the live one's too).
    expect(log).toHaveLength(8);
    expect(err).toBeInstanceOf(AggregateError);
    const { errors, message } = err as AggregateError;
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof StartError)).toBe(true);
    expect(message).toMatch(/^2 services failed to start:\n/);
    expect(message).toMatch(/dispatcher-1 exited \(code 1\) while starting/);
    expect(message).toContain('| dispatcher-1 cannot start: on purpose');
    expect(message).toMatch(/gateway exited \(code 1\) while starting/);
    expect(message).toContain('| gateway cannot start: on purpose');
    expect(message).not.toContain('egress-relay');
  });

  it('throws one failure as itself, after the others have started; all live, it resolves', async () => {
    const specs = await Promise.all(['message-intake', 'recovery', 'alerting', 'portal'].map(specOf));
    const log: string[] = [];
    const err = await startInOrder(specs, launcher({ 'message-intake': 'live', recovery: 'live', alerting: 'fails', portal: 'live' }, log)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartError);
    expect((err as Error).message).toMatch(/^alerting exited \(code 1\) while starting/);
    expect(log.filter((l) => l.startsWith('end '))).toHaveLength(4);

    const live = await Promise.all(['message-intake', 'recovery', 'alerting'].map(specOf));
    await expect(startInOrder(live, launcher({ 'message-intake': 'live', recovery: 'live', alerting: 'live' }, []))).resolves.toBeUndefined();
  });

  it('starts nothing more when message-intake fails to start', async () => {
    const specs = await Promise.all(['message-intake', 'gateway', 'portal'].map(specOf));
    const log: string[] = [];
    const err = await startInOrder(specs, launcher({ 'message-intake': 'fails', gateway: 'live', portal: 'live' }, log)).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^message-intake exited \(code 1\) while starting/);
    expect(log).toEqual(['start message-intake', 'end message-intake']);
  });
});

describe('stopping a service', () => {
  it('resolves once the service’s output is read to its end, not at its exit (what is still in the pipe then is read too)', async () => {
    // The service starts a process that shares its stdout and writes the last line once the service is gone (its parent
    // changes): a line still to come at the exit, made certain, however slowly either starts. 'exit' comes before it.
    const last =
      "const parent = process.ppid; console.log('watching'); " +
      "setInterval(() => { if (process.ppid !== parent) { console.log('the last line'); process.exit(0); } }, 10)";
    const code = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(last)}], { stdio: ['ignore', 'inherit', 'ignore'] }).unref();
    process.on('SIGTERM', () => process.exit(0));
    setInterval(() => {}, 60_000);`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const lines: string[] = [];
    const { promise: watching, resolve } = Promise.withResolvers<void>();
    createInterface({ input: child.stdout }).on('line', (l) => {
      lines.push(l);
      if (l === 'watching') resolve();
    });
    await watching;
    await stopChild(child, 'SIGTERM', 20_000);
    expect(lines).toEqual(['watching', 'the last line']);
    expect(child.exitCode).toBe(0);
  });
});

describe('stopping a service, bounded', () => {
  it('a service that ignores SIGTERM is killed after the hard wait', async () => {
    const child = spawn(process.execPath, ['-e', `process.on('SIGTERM', () => {}); setInterval(() => {}, 60_000); console.log('up');`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await stopChild(child, 'SIGTERM', 300);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('a process the service left holding its pipes does not hold the stop: its output is cut OUTPUT_AFTER_EXIT_MS after the exit', async () => {
    // Its last words have no newline: the cut still gives them to the line reader (eachLine; readline dropped them).
    const holder = `process.stdout.write('holder ' + process.pid + '\\n' + 'its last words'); setInterval(() => {}, 60_000)`;
    const code = `process.on('SIGTERM', () => process.exit(0));
    require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(holder)}], { stdio: ['ignore', 'inherit', 'ignore'] }).unref();
    setInterval(() => {}, 60_000);`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const lines: string[] = [];
    eachLine(child.stdout, (l) => lines.push(l));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const holderPid = Number(lines.find((l) => l.startsWith('holder '))?.slice(7));
    try {
      const startedAt = performance.now();
      await stopChild(child, 'SIGTERM', 20_000);
      expect(child.exitCode).toBe(0);
      expect(lines.at(-1)).toBe('its last words');
      // Not before the bound: what the pipes held in that time was still read.
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(OUTPUT_AFTER_EXIT_MS);
    } finally {
      process.kill(holderPid, 'SIGKILL');
    }
  });
});
