/**
 * Background work started at most every `everyMs` by the caller's clock, one run at a time,
 * beside its caller: `maybeStart` never waits for it, so a tick or a request that pokes it pays
 * nothing for the run. A clock that stepped back starts it again at once rather than waiting
 * out the interval from a time still to come. A failed run is told to `failed` and tried again
 * at the next start due.
 */
export class PacedRun {
  readonly #everyMs: number;
  readonly #run: (now: number) => Promise<void>;
  readonly #failed: (err: unknown) => void;
  #lastStart: number | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(everyMs: number, run: (now: number) => Promise<void>, failed: (err: unknown) => void) {
    this.#everyMs = everyMs;
    this.#run = run;
    this.#failed = failed;
  }

  /** Starts a run at `now` when one is due and none is going. @returns whether it started one. */
  maybeStart(now: number): boolean {
    if (this.#running !== undefined || this.#stopped) return false;
    const last = this.#lastStart;
    if (last !== undefined && now - last < this.#everyMs && now >= last) return false;
    this.#lastStart = now;
    // Started on the next microtask, so a run that throws at once is still a failed run.
    this.#running = Promise.resolve()
      .then(() => this.#run(now))
      .catch(this.#failed)
      .finally(() => {
        this.#running = undefined;
      });
    return true;
  }

  /** Whether a run is going. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Starts no more runs. @returns when the run going, if any, has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}
