import { within } from '@wirehook/core';

/** How long one read of a scraped source answers the scrapes after it, by which clock. */
export interface Reuse {
  ms: number;
  now: () => number;
}

/** Scrapes that arrive together (one per gauge, two Prometheus servers) share a read. */
export const SCRAPE_REUSE: Reuse = { ms: 100, now: () => performance.now() };

/** The longest a scrape waits for a source's read by default: under Prometheus's default scrape timeout of 10 s. */
export const SCRAPE_WAIT_MS = 6_000;

export interface ScrapedSourceOptions<T> {
  reuse?: Reuse;
  /**
   * What a scrape shows once a read failed or ran past SCRAPE_WAIT_MS: the last good answer (`keep`), or
   * none (`unknown`: the gauges read NaN until a read succeeds, as before the first one).
   */
  onFailure?: 'keep' | 'unknown';
  /** A read that succeeded, and its answer. */
  succeeded?: (t: T) => void;
  /**
   * A read that failed or ran past SCRAPE_WAIT_MS; `again` when that read was told of before (it ran
   * late, then failed: told again for its error, to be counted once).
   */
  failed?: (err: Error, again: boolean) => void;
}

/**
 * A source the gauges read at a scrape (the store's backlog, its lanes, JetStream's consumer).
 * One read at a time: it answers every scrape for `reuse.ms` after it ended (a clock that
 * stepped back reads again), and while it runs no other starts, however long it takes (a pool
 * that is saturated gets one read from here, not one a scrape). A scrape waits for a running
 * read at most SCRAPE_WAIT_MS (and not at all once it is known to be late), so /metrics answers
 * whatever the source does.
 */
export class ScrapedSource<T> {
  readonly #read: () => Promise<T>;
  readonly #reuse: Reuse;
  readonly #keep: boolean;
  readonly #events: Pick<ScrapedSourceOptions<T>, 'succeeded' | 'failed'>;
  #answer: T | null = null;
  #running: Promise<void> | undefined;
  /** Whether the running read has already been counted as failed for running late. */
  #late = false;
  #endedAt: number | undefined;

  constructor(read: () => Promise<T>, options: ScrapedSourceOptions<T> = {}) {
    this.#read = read;
    this.#reuse = options.reuse ?? SCRAPE_REUSE;
    this.#keep = (options.onFailure ?? 'keep') === 'keep';
    this.#events = options;
  }

  /** The answer a scrape shows: a fresh read's, or the last (null: none, or unknown after a failure). */
  async get(): Promise<T | null> {
    if (this.#running === undefined && !this.#fresh()) this.#start();
    const running = this.#running;
    // A read already known to be late is not waited for again: the scrape answers at once.
    if (running === undefined || this.#late) return this.#answer;
    const ended = await within(running, SCRAPE_WAIT_MS, () => new Error('late')).then(
      () => true,
      () => false,
    );
    // Told once a read, by the first scrape to give up on it.
    if (!ended && this.#running === running && !this.#late) {
      this.#late = true;
      this.#fail(new Error(`no answer within ${SCRAPE_WAIT_MS} ms`));
    }
    return this.#answer;
  }

  #fresh(): boolean {
    if (this.#endedAt === undefined) return false;
    const age = this.#reuse.now() - this.#endedAt;
    return age >= 0 && age < this.#reuse.ms;
  }

  #start(): void {
    this.#late = false;
    const run = this.#read()
      .then(
        (t) => {
          this.#answer = t;
          this.#events.succeeded?.(t);
        },
        (err: unknown) => {
          const error = err instanceof Error ? err : new Error(String(err));
          // Already counted when it ran late: told again for its error, not counted twice.
          if (this.#late) this.#events.failed?.(error, true);
          else this.#fail(error);
        },
      )
      .finally(() => {
        this.#running = undefined;
        this.#endedAt = this.#reuse.now();
      });
    this.#running = run;
  }

  #fail(err: Error): void {
    if (!this.#keep) this.#answer = null;
    this.#events.failed?.(err, false);
  }
}
