// The control beside the API probe: a bare node:http server in a process of its own that
// answers every request at once with a constant, probed like Wirehook's API and in the same
// windows. Nothing is faster on this machine than it, so its p99 while Wirehook delivers
// (against its own idle p99) is what the machine's scheduling alone does to a caller's
// latency at that load: the floor under the API probe's figure (docs/benchmarks.md).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';

const RUNNING_AS_CHILD = process.argv[2] === 'control-server';

/** The control server's process, and its URL (the probe's `apiUrl`). */
export class ControlServer {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(): Promise<ControlServer> {
    const child = fork(new URL(import.meta.url), ['control-server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const [port] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the control server exited (code ${code}) before listening`))),
    ])) as [number];
    return new ControlServer(child, port);
  }

  get pid(): number {
    return this.#child.pid!;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill();
    await exited;
  }
}

if (RUNNING_AS_CHILD) {
  // About the size of the probing org's event-type list, so the bytes on the wire match.
  const body = JSON.stringify({ data: [{ name: 'bench.event', description: null, schema: null, archived: false }], iterator: null, done: true });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the control server has no port');
    process.send!(address.port);
  });
  // Ends with the harness: its IPC channel closes when the harness exits, however it exits.
  process.on('disconnect', () => process.exit(0));
}
