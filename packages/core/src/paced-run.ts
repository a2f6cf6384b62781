/**
 * Background work started at most every `everyMs` by the caller's clock, one run at a time,
 * beside its caller: `maybeStart` never waits for it, so a tick or a request that pokes it pays
 * nothing for the run. A clock that stepped back starts it again at once rather than waiting
 * out the interval from a time still to come. A failed run is told to `failed` and tried again
 * at the next start due; so is, once, a run still going `stuckAfterMs` after it started (a call
 * hung on a dead connection would otherwise stop every later run without a word).
 */
export class PacedRun {
  readonly #everyMs: number;
  readonly #run: (now: number) => Promise<void>;
  readonly #failed: (err: unknown) => void;
  readonly #stuckAfterMs: number;
  #lastStart: number | undefined;
  #toldStuck = false;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(everyMs: number, run: (now: number) => Promise<void>, failed: (err: unknown) => void, stuckAfterMs = 10 * everyMs) {
    this.#everyMs = everyMs;
    this.#run = run;
    this.#failed = failed;
    this.#stuckAfterMs = stuckAfterMs;
  }

  /** Starts a run at `now` when one is due and none is going. @returns whether it started one. */
  maybeStart(now: number): boolean {
    if (this.#stopped) return false;
    const last = this.#lastStart;
    if (this.#running !== undefined) {
      if (!this.#toldStuck && last !== undefined && now - last >= this.#stuckAfterMs) {
        this.#toldStuck = true;
        this.#tell(new Error(`still running ${Math.round((now - last) / 1_000)} s after it started; no other run starts until it ends`));
      }
      return false;
    }
    if (last !== undefined && now - last < this.#everyMs && now >= last) return false;
    this.#lastStart = now;
    this.#toldStuck = false;
    // Started on the next microtask, so a run that throws at once is still a failed run (and
    // a stop() in between starts none).
    this.#running = Promise.resolve()
      .then(() => (this.#stopped ? undefined : this.#run(now)))
      .catch((err: unknown) => this.#tell(err))
      .finally(() => {
        this.#running = undefined;
      });
    return true;
  }

  /** `failed`, whose own throw must not become an unhandled rejection. */
  #tell(err: unknown): void {
    try {
      this.#failed(err);
    } catch {
      // Nothing left to tell it to.
    }
  }

  /** Whether a run is going. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Whether stop() was called: a run in several steps ends after the step going on. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Starts no more runs. @returns when the run going, if any, has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}
