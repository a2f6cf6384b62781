/**
 * A plain success's streak clears (delivery-complete.ts, clearStreak), one write in flight per
 * endpoint. A recovering endpoint's successes finish together — as many as its places let a
 * drain send at once — and each read the streak before the first clear landed: each would write
 * the endpoint's document, and while the database refuses work (admission control) every refusal
 * fails a success, sent again after its lease. Coalesced, the successes that come while one clear
 * is in flight share the next, written once it settles with the latest of their attempts' times:
 * at most two writes of the endpoint a round trip, whatever the drain's width.
 *
 * The same as each writing its own: the shared write is sent after every joiner's read of the
 * streak was answered (it waits for the one in flight), and its filter (`failingSince` at or
 * before the latest attempt) clears every streak a joiner's own would have; each joiner hears
 * its outcome before its delivery is written, as before. Never an earlier write in flight: its
 * read may have preceded it. What sharing changes: a write refused fails every success that
 * shares it (each sent again after its lease), where of their own writes some might have got
 * through — the next success writes again; and one a majority did not confirm in time answers
 * the successes waiting behind it the same (`settles`), sent to their transactions at once
 * rather than after a second wait as long, which could outlast their leases. A write not answered
 * in its time (`stalled`: a connection that died without closing) is answered so too and its
 * endpoint forgotten: the next success writes again, two writes of the endpoint in flight then.
 */
export class StreakClears<R> {
  /** The endpoints with a clear in flight, and the one waiting to follow it. */
  readonly #byEndpoint = new Map<string, { next: Shared<R> | null }>();
  /** Whether a write's result answers the successes waiting behind it as well, with no write of theirs. */
  readonly #settles: (result: R) => boolean;
  /** A write not answered this long is answered `stalled.result` (a connection that died without closing). */
  readonly #stalled: { afterMs: number; result: R } | undefined;

  constructor(settles: (result: R) => boolean = () => false, stalled?: { afterMs: number; result: R }) {
    this.#settles = settles;
    this.#stalled = stalled;
  }

  /** Clears `key`'s streak as of `at` by `write`, or shares the next write that does. */
  clear(key: string, at: number, write: (at: number) => Promise<R>): Promise<R> {
    const state = this.#byEndpoint.get(key);
    if (state === undefined) {
      const started = { next: null };
      this.#byEndpoint.set(key, started);
      return this.#write(key, started, at, write);
    }
    if (state.next === null) state.next = { at, write, ...Promise.withResolvers<R>() };
    else state.next.at = Math.max(state.next.at, at);
    return state.next.promise;
  }

  /** Endpoints with a clear in flight (a test's, and a leak's, measure). */
  get inFlight(): number {
    return this.#byEndpoint.size;
  }

  #write(key: string, state: { next: Shared<R> | null }, at: number, write: (at: number) => Promise<R>): Promise<R> {
    const written = this.#stalled === undefined ? write(at) : answeredWithin(write(at), this.#stalled.afterMs, this.#stalled.result);
    const then = (result?: R) => {
      const next = state.next;
      if (next === null) {
        this.#byEndpoint.delete(key);
        return;
      }
      state.next = null;
      if (result !== undefined && this.#settles(result)) {
        this.#byEndpoint.delete(key);
        next.resolve(result);
        return;
      }
      this.#write(key, state, next.at, next.write).then(next.resolve, next.reject);
    };
    written.then(then, () => then());
    return written;
  }
}

interface Shared<R> {
  at: number;
  write: (at: number) => Promise<R>;
  promise: Promise<R>;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}

/**
 * `promise`, or `result` once `ms` have passed without its answer: a write on a connection that
 * died without closing (no socket timeout is set) is never answered, and every success of its
 * endpoint in the process would wait behind it. Its late answer is dropped.
 */
function answeredWithin<R>(promise: Promise<R>, ms: number, result: R): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<R>((resolve) => {
    timer = setTimeout(() => resolve(result), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
