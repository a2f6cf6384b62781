import type { Worker } from 'node:worker_threads';

/**
 * The worker threads of this process that their owners have let go of (ended, or lost to an
 * error) and that have not yet exited, so a new thread starts only once they have. Node can
 * crash — a segfault, or V8's `jit_page` check — when a worker thread starts while another's
 * isolate is being torn down (nodejs/node#56312, nodejs/node#64500, open on Node 24); replacing
 * a stuck egress thread, or a sandbox past its budget, would do just that. One registry for the
 * process: the crash is between any two threads, not two of one owner's.
 */
/**
 * How long a start waits for threads let go of at most. terminate() stops JavaScript at once, but
 * a thread inside a native call exits only when the call returns: past this, the start goes on
 * (the crash above is rare; a thread never started again would stall every send).
 */
export const EXIT_WAIT_MS = 10_000;

class ThreadExits {
  /** Every watched thread not yet exited, with its exit. */
  readonly #exits = new Map<Worker, Promise<void>>();
  /** Those let go of. */
  readonly #letGo = new Set<Worker>();

  /** Follows `worker` until it exits. Call it as the thread is created: its 'exit' comes once. */
  watch(worker: Worker): void {
    this.#exits.set(
      worker,
      new Promise<void>((resolve) =>
        worker.once('exit', () => {
          this.#exits.delete(worker);
          this.#letGo.delete(worker);
          resolve();
        }),
      ),
    );
  }

  /** Marks `worker` as going (ended, or failed): starts wait for its exit. Nothing for one already exited. */
  letGo(worker: Worker): void {
    if (this.#exits.has(worker)) this.#letGo.add(worker);
  }

  /**
   * Settles once every thread let go of has exited, or after EXIT_WAIT_MS; undefined when none
   * is left (a thread may start in this same turn).
   */
  exiting(): Promise<void> | undefined {
    if (this.#letGo.size === 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, EXIT_WAIT_MS);
      timer.unref();
    });
    const exited = Promise.all([...this.#letGo].map((worker) => this.#exits.get(worker)));
    return Promise.race([exited, waited]).then(() => clearTimeout(timer));
  }
}

/** The process's one registry of threads let go of (ThreadExits). */
export const threadExits = new ThreadExits();
