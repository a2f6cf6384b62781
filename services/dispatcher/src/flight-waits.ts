// Deliveries of this dispatcher waiting for a place in their endpoint's shared flight,
// apart from EndpointThrottle, which decides what may be sent.

export interface FlightWaitsOptions {
  /**
   * Takes a place in the endpoint's shared flight for `member`. @returns when the limit it
   * entered under was read (Unix ms), or null while the places are all taken.
   */
  enter: (endpointId: string, member: string) => Promise<number | null>;
  /** Gives back a place taken for a waiter that had given up meanwhile. */
  leave: (endpointId: string, member: string) => Promise<void>;
  /**
   * Calls `onFreed` whenever a send of the endpoint ends in any dispatcher (the shared Kv's
   * signal) until the function it resolves to is called. Rejects while the Kv is unreachable.
   */
  listen: (endpointId: string, onFreed: () => void) => Promise<() => void>;
  /**
   * How often the head of an endpoint's queue asks again when no signal came: only a check
   * for signals lost (they are sent at most once), not how waiters learn of a place.
   */
  pollMs: number;
  /** A delivery waiting longer than this gives up (it goes back to the store). */
  maxWaitMs: number;
}

interface Waiter {
  member: string;
  resolve: (enteredAt: number | null) => void;
  timer: NodeJS.Timeout;
}

interface Queue {
  waiters: Waiter[];
  /** Ends the current pause between asks early: a place may have freed. */
  kick: (() => void) | undefined;
  /** A place may have freed while the head was asking: it asks again at once. */
  kicked: boolean;
}

/**
 * Deliveries whose endpoint's adaptive in-flight limit is taken by sends of other
 * dispatchers wait here, in arrival order per endpoint, instead of going back to the store:
 * a round trip there costs far more than the wait for a send to end (one of two
 * cluster runs lost 18 % of a receiver's capacity to 100 ms requeues). Only the head of each
 * endpoint's queue asks the shared Kv: once it listens, then each time a send of the endpoint
 * ends, here (`kick`) or in another dispatcher (the Kv's signal, `listen`), and after `pollMs`
 * without one. It used to ask every 5 ms (two Redis calls each, CPU ×6 with 20 held
 * endpoints). Each waiter holds its slot and place meanwhile, as a send would: at most the
 * endpoint's slots of them. Timers are real time (a wait, not a decision by the clock).
 */
export class FlightWaits {
  readonly #options: FlightWaitsOptions;
  readonly #queues = new Map<string, Queue>();
  #stopped = false;

  constructor(options: FlightWaitsOptions) {
    this.#options = options;
  }

  /** Waits for a place in `endpointId`'s flight for `member`. @returns what `enter` did once entered, null after `maxWaitMs` or `stop`. */
  wait(endpointId: string, member: string): Promise<number | null> {
    if (this.#stopped) return Promise.resolve(null);
    return new Promise((resolve) => {
      let queue = this.#queues.get(endpointId);
      const waiter: Waiter = { member, resolve, timer: setTimeout(() => this.#giveUp(endpointId, waiter), this.#options.maxWaitMs) };
      if (queue === undefined) {
        queue = { waiters: [waiter], kick: undefined, kicked: false };
        this.#queues.set(endpointId, queue);
        void this.#run(endpointId, queue);
      } else {
        queue.waiters.push(waiter);
      }
    });
  }

  /** A send of `endpointId` ended (here, or in another dispatcher): its queue's head asks again now. */
  kick(endpointId: string): void {
    const queue = this.#queues.get(endpointId);
    if (queue === undefined) return;
    if (queue.kick !== undefined) queue.kick();
    else queue.kicked = true;
  }

  /** Every waiter gives up now; later waits give up at once (the dispatcher is stopping). */
  stop(): void {
    this.#stopped = true;
    for (const [endpointId, queue] of this.#queues) for (const waiter of [...queue.waiters]) this.#giveUp(endpointId, waiter);
  }

  #giveUp(endpointId: string, waiter: Waiter): void {
    const queue = this.#queues.get(endpointId);
    const at = queue?.waiters.indexOf(waiter) ?? -1;
    if (at < 0) return;
    queue!.waiters.splice(at, 1);
    clearTimeout(waiter.timer);
    waiter.resolve(null);
  }

  async #run(endpointId: string, queue: Queue): Promise<void> {
    // The head asks at once; the Kv's signal is listened for beside it (never waited for: a
    // subscriber connection still starting, or lost, must not hold the first ask), and asked for
    // again at each recheck until it is heard. Once listening, the head asks again: a place
    // freed before the subscription took hold is not missed.
    let unlisten: (() => void) | undefined;
    let asking = false;
    const listen = () => {
      if (unlisten !== undefined || asking || this.#stopped) return;
      asking = true;
      this.#options
        .listen(endpointId, () => this.kick(endpointId))
        .then(
          (stop) => {
            asking = false;
            if (this.#queues.get(endpointId) !== queue) return stop();
            unlisten = stop;
            this.kick(endpointId);
          },
          () => {
            asking = false;
          },
        );
    };
    listen();
    try {
      await this.#serve(endpointId, queue, listen);
    } finally {
      unlisten?.(); // a listen still under way ends itself when it resolves: the queue is gone
    }
  }

  async #serve(endpointId: string, queue: Queue, recheck: () => void): Promise<void> {
    while (queue.waiters.length > 0) {
      const head = queue.waiters[0]!;
      queue.kicked = false;
      let entered: number | null = null;
      try {
        entered = await this.#options.enter(endpointId, head.member);
      } catch {
        entered = null; // asked again after the pause
      }
      if (entered !== null && queue.waiters[0] === head) {
        queue.waiters.shift();
        clearTimeout(head.timer);
        head.resolve(entered);
        continue;
      }
      // It gave up while it asked: the place taken for it goes back, and the next one asks at once.
      if (entered !== null) {
        await this.#options.leave(endpointId, head.member).catch(() => undefined);
        continue;
      }
      if (queue.kicked) continue;
      await new Promise<void>((resume) => {
        const timer = setTimeout(() => {
          recheck();
          resume();
        }, this.#options.pollMs);
        queue.kick = () => {
          clearTimeout(timer);
          resume();
        };
      });
      queue.kick = undefined;
    }
    this.#queues.delete(endpointId);
  }
}
