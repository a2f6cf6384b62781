// The control beside the API probe: a bare node:http server in a process of its own
// (control-server-process.ts), probed like Wirehook's API and in the same windows. At equal
// priority nothing on this machine answers a caller faster, so its p99 while Wirehook
// delivers (against its own idle p99) is what the machine's scheduling alone does to a
// caller's latency at that load: the floor under the API probe's figure (docs/benchmarks.md).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const CONTROL_MAIN = new URL('./control-server-process.ts', import.meta.url);
/** How long it may take to say its port. */
const START_TIMEOUT_MS = 10_000;

/** The control server's process, and its URL (the probe's `apiUrl`). */
export class ControlServer {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(): Promise<ControlServer> {
    const child = fork(CONTROL_MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let port: number;
    try {
      [port] = (await Promise.race([
        once(child, 'message', { signal: AbortSignal.timeout(START_TIMEOUT_MS) }),
        once(child, 'exit').then(([code]) => Promise.reject(new Error(`the control server exited (code ${code}) before listening`))),
      ])) as [number];
    } catch (err) {
      child.kill();
      throw err;
    }
    // Neither it nor its channel keeps the harness alive: a bench that fails before stop() still exits (and the child with it).
    child.unref();
    child.channel?.unref();
    return new ControlServer(child, port);
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill();
    await exited;
  }
}
