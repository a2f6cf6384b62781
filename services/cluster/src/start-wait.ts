// Waiting for a freshly spawned service to report live, and saying why when it does not.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ServiceSpec } from './service-spec.ts';

/** As @wirehook/core's nodeHttp (this package does not depend on it): no ESM import of node:http, which loads Node's undici. */
const nodeHttp = process.getBuiltinModule('node:http');

/** How long one /livez request of the start-up wait may take. */
const LIVEZ_TIMEOUT_MS = 1_000;

/** Lines of a child's output kept for the error that says why it did not start. */
const OUTPUT_TAIL_LINES = 20;

/** The last lines a child printed, kept so a failed start can show them. */
export class OutputTail {
  readonly #lines: string[] = [];

  push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > OUTPUT_TAIL_LINES) this.#lines.shift();
  }

  toString(): string {
    return this.#lines.length ? this.#lines.map((l) => `  | ${l}`).join('\n') : '  (it printed nothing)';
  }
}

/** Why a start-up wait ended without the service live. */
export class StartError extends Error {
  /** True when the process is still running but never opened its health port: a stalled start, worth one more try. */
  readonly neverListened: boolean;

  constructor(message: string, neverListened: boolean) {
    super(message);
    this.neverListened = neverListened;
  }
}

/**
 * Spawns a service and waits until it is live. A process that never even opened its health
 * port within `timeoutMs` stalled in start-up (seen once on a CI machine under load, its cause
 * not known): it is killed and started once more, said through `retrying`; any other failure,
 * or a second stall, is thrown.
 */
export async function startLive(
  spec: ServiceSpec,
  timeoutMs: number,
  io: { spawn(): { child: ChildProcess; output: OutputTail }; kill(): Promise<void>; retrying(err: StartError): void },
): Promise<void> {
  const first = io.spawn();
  try {
    await waitLive(spec, first.child, timeoutMs, first.output);
  } catch (err) {
    if (!(err instanceof StartError) || !err.neverListened) throw err;
    io.retrying(err);
    await io.kill();
    const second = io.spawn();
    await waitLive(spec, second.child, timeoutMs, second.output);
  }
}

/** Resolves once `child` answers /livez on its metrics port as itself and running (not still starting, nor stopping). */
export async function waitLive(spec: ServiceSpec, child: ChildProcess, timeoutMs: number, output: OutputTail): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing answered';
  let answered = false;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new StartError(`${spec.name} exited (${child.signalCode ?? `code ${child.exitCode}`}) while starting; its last lines:\n${output}`, false);
    }
    try {
      const res = await getLivez(spec.metricsPort);
      answered = true;
      const body = res.body;
      // Another process answering on the port (an earlier run's) is not this service.
      if (res.ok && body.pid === child.pid && body.state === 'running') return;
      last = !res.ok
        ? `port ${spec.metricsPort} answered ${res.status}`
        : body.pid !== child.pid
          ? `port ${spec.metricsPort} answers, but from another process (pid ${body.pid ?? 'unknown'}), not the ${spec.name} started here (pid ${child.pid})`
          : body.state === 'stopping'
            ? 'stopping (told to stop while it started)'
            : `still starting (waiting for a dependency: see its /readyz and its log)`;
    } catch (err) {
      const e = err as Error & { code?: string };
      // Accepted but silent (a long synchronous step, a blocked event loop): it listens, so it is no stalled start.
      if (e.name === 'TimeoutError') answered = true;
      last =
        e.name === 'TimeoutError'
          ? `port ${spec.metricsPort} accepted but did not answer within ${LIVEZ_TIMEOUT_MS} ms`
          : `not listening yet (${e.code ?? e.message})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new StartError(
    `${spec.name} did not report live within ${timeoutMs} ms: ${last}; ${processState(child.pid)}; its last lines:\n${output}`,
    !answered && child.exitCode === null && child.signalCode === null,
  );
}

/** The most of a /livez answer read: its JSON is a few dozen bytes; more is not this service. */
const LIVEZ_MAX_BYTES = 64 * 1024;

type Livez = { ok: boolean; status: number; body: { pid?: number; state?: string } };

/**
 * One GET of /livez on `port`, answered within LIVEZ_TIMEOUT_MS (a port held by a program that
 * accepts and never answers must not stall the wait): node:http, not fetch, which refuses the
 * ports on the Fetch standard's "bad port" list — 10080 among them, where a run of metrics ports
 * from METRICS_PORT may land (a cluster that never started, "fetch failed"). Once a status line
 * has come, the port has answered: a body cut off, too long or not JSON reads as no pid.
 * @throws the connection's error (its `code`) before any answer, or one named TimeoutError.
 */
function getLivez(port: number): Promise<Livez> {
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    let text = '';
    const settle = (err?: Error) => {
      clearTimeout(timer);
      if (status === undefined) return reject(err);
      resolve({ ok: status >= 200 && status < 300, status, body: err === undefined ? livezBody(text) : {} });
    };
    const req = nodeHttp.get({ host: '127.0.0.1', port, path: '/livez', agent: false }, (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > LIVEZ_MAX_BYTES) req.destroy(new Error(`a /livez answer over ${LIVEZ_MAX_BYTES} bytes`));
      });
      res.on('error', settle);
      res.on('end', () => settle());
    });
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`no answer within ${LIVEZ_TIMEOUT_MS} ms`), { name: 'TimeoutError' })),
      LIVEZ_TIMEOUT_MS,
    );
    req.on('error', settle);
  });
}

/** A /livez answer's pid and state, or none (not JSON, not an object). */
function livezBody(text: string): Livez['body'] {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Livez['body']) : {};
  } catch {
    return {};
  }
}

/** The kernel's view of a process (Linux): its state letter and the CPU it has used — stalled or busy. */
function processState(pid: number | undefined): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return `process ${pid} state ${fields[0]}, ${(ticks / 100).toFixed(1)} s of CPU used`;
  } catch {
    return `process ${pid}: no kernel state to read`;
  }
}
