// A server in a child process of the harness (the control server, the pipeline floor): forked
// with an IPC channel, it says its port over it once it listens.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** How long a forked server may take to say its port. */
const START_TIMEOUT_MS = 10_000;

/** A forked server's process and its URL (`http://127.0.0.1:<port>`). */
export class ForkedServer {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.url = `http://127.0.0.1:${port}`;
  }

  /**
   * Forks `main` with `args` (and `nodeFlags` after the harness's own); @returns once it said its
   * port. @throws if it exits or stays silent first (`what` names it).
   */
  static async start(main: URL, args: string[], what: string, nodeFlags: string[] = []): Promise<ForkedServer> {
    const child = fork(main, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...nodeFlags] });
    let port: number;
    try {
      [port] = (await Promise.race([
        once(child, 'message', { signal: AbortSignal.timeout(START_TIMEOUT_MS) }),
        once(child, 'exit').then(([code]) => Promise.reject(new Error(`${what} exited (code ${code}) before listening`))),
      ])) as [number];
    } catch (err) {
      child.kill();
      throw err;
    }
    // Neither it nor its channel keeps the harness alive: a bench that fails before stop() still exits (and the child with it).
    child.unref();
    child.channel?.unref();
    return new ForkedServer(child, port);
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** Whether it still runs: neither exited nor killed. */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill();
    await exited;
  }
}
