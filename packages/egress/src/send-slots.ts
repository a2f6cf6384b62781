/**
 * Sends in flight per key (an endpoint at an origin), at most `size` at once; the others wait
 * their turn in order. The connections are the origin's, shared by its endpoints
 * (http-egress.ts): these slots keep one endpoint from holding more than its share of them,
 * and are what a send waits for when it waits "for a connection".
 */
export class SendSlots {
  readonly #size: number;
  readonly #keys = new Map<string, { busy: number; waiting: (() => void)[] }>();

  constructor(size: number) {
    this.#size = size;
  }

  /**
   * Takes a slot of `key`: at once (undefined: nothing to wait for, nothing allocated), or a
   * promise that settles when one is handed over, or rejects with the signal's reason when it
   * aborts first (the wait then leaves the queue). Each slot taken is given back once.
   */
  take(key: string, signal: AbortSignal): Promise<void> | undefined {
    const entry = this.#keys.get(key);
    if (entry === undefined) {
      this.#keys.set(key, { busy: 1, waiting: [] });
      return undefined;
    }
    if (entry.busy < this.#size) {
      entry.busy++;
      return undefined;
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const handOver = () => {
        signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        const at = entry.waiting.indexOf(handOver);
        if (at >= 0) entry.waiting.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', abort, { once: true });
      entry.waiting.push(handOver);
    });
  }

  /** Gives a slot of `key` back: to the first send waiting for one, else free. */
  give(key: string): void {
    const entry = this.#keys.get(key);
    if (entry === undefined) return;
    const next = entry.waiting.shift();
    if (next !== undefined) {
      next();
      return;
    }
    entry.busy--;
    if (entry.busy === 0) this.#keys.delete(key);
  }

  /** Keys with a send in flight. */
  get keys(): number {
    return this.#keys.size;
  }
}
