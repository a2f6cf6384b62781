// The dispatcher's `concurrency` as a count of places: the sweep publishes no more than are
// free, the attempt path admits into one or drops the wake-up.
/**
 * The dispatcher's `concurrency` places. An attempt holds one from its admission (while it
 * is claimed) to its send's answer — its completion is written without it while no more
 * completions than places are being written (AttemptRunner), else with it — or until it turns
 * out no send starts. A wake-up or a
 * hand-off that finds no free place is not taken: the delivery stays due in the store, where
 * a backlog of any size waits (indexed), not in memory.
 */
export class AttemptPlaces {
  /** How many attempts may run at once. */
  readonly size: number;
  #taken = 0;

  constructor(size: number) {
    this.size = size;
  }

  /** Attempts admitted and not finished: claiming, or sending. */
  get taken(): number {
    return this.#taken;
  }

  /** Places left (never below 0). */
  get free(): number {
    return Math.max(0, this.size - this.#taken);
  }

  get full(): boolean {
    return this.#taken >= this.size;
  }

  take(): void {
    this.#taken++;
  }

  give(): void {
    this.#taken--;
  }
}
