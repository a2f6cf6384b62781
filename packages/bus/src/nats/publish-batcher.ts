import { BATCH_HEADER, type BatchedMessage, encodeBatch } from './batch-codec.ts';

/** Most bus messages one JetStream message carries (about 100 bytes each for a dispatch job). */
export const MAX_BATCH_MESSAGES = 16;
/**
 * JetStream messages in flight at once per subject. One as a rule: what is published while it
 * awaits its ack gathers for the next. More once the oldest has waited SLOW_ACK_MS (an ack
 * lost as a server restarts, a leader moving), or when a full batch waits: a slow message then
 * holds up only its own publishes.
 */
export const MAX_IN_FLIGHT = 4;
/** How long the oldest message in flight may await its ack before a second one goes beside it. */
export const SLOW_ACK_MS = 20;
/** Most publishes waiting to be sent; beyond it a publish is refused at once. */
export const MAX_WAITING_PUBLISHES = 10_000;

/** A publish refused because MAX_WAITING_PUBLISHES already wait: NATS answers, but slower than publishes come. */
export class PublishQueueFullError extends Error {
  constructor(subject: string) {
    super(`could not publish to ${subject}: ${MAX_WAITING_PUBLISHES} publishes already wait for NATS JetStream`);
    this.name = 'PublishQueueFullError';
  }
}

export interface PublishBatcherOptions {
  /** The NATS subject, for error messages. */
  subject: string;
  /** How long a publish may take, waiting included, before it rejects (NatsBus's publishTimeoutMs). */
  timeoutMs: number;
  /**
   * Publishes one JetStream message and resolves on its acknowledgement; retries (a fresh
   * `Nats-Msg-Id` per message) until `deadline` (epoch ms), then rejects.
   */
  send(data: Uint8Array, headers: Readonly<Record<string, string>>, deadline: number): Promise<void>;
}

interface Waiting extends BatchedMessage {
  deadline: number;
  /** Put back after a failed message: sent apart, its little time left would cut a fresh batch's. */
  putBack?: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group publishing for one subject, as a store's group commit: the publishes of one
 * event-loop turn (a fan-out message's wake-ups, the messages of one store commit) go as one
 * JetStream message, up to MAX_BATCH_MESSAGES, encoded by batch-codec; and while a message
 * awaits its acknowledgement, what is published meanwhile waits and goes together in the next
 * (see MAX_IN_FLIGHT). So the broker's work — a store, a hand-out and an ack per message — is
 * shared by more publishes as the load grows, for the price of at most one acknowledgement's
 * wait. A batch of one is sent as a plain message. A message that fails puts back the
 * publishes that still have time; every publish settles by its own deadline.
 */
export class PublishBatcher {
  readonly #o: PublishBatcherOptions;
  #queue: Waiting[] = [];
  /** When each message in flight was sent, oldest first. */
  #inFlight: number[] = [];
  #scheduled = false;
  #slowTimer: NodeJS.Timeout | undefined;
  #drained: (() => void)[] = [];

  constructor(options: PublishBatcherOptions) {
    this.#o = options;
  }

  /**
   * Resolves once the message carrying it is acknowledged by JetStream.
   * @throws PublishQueueFullError (rejects at once) when MAX_WAITING_PUBLISHES already wait.
   */
  add(data: Uint8Array, headers: Readonly<Record<string, string>>): Promise<void> {
    if (this.#queue.length >= MAX_WAITING_PUBLISHES) return Promise.reject(new PublishQueueFullError(this.#o.subject));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ data, headers, deadline: Date.now() + this.#o.timeoutMs, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once nothing waits and nothing is in flight (each publish settled). */
  drained(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** Sends at the end of this turn, so the turn's publishes share a message. */
  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0 || this.#inFlight.length >= MAX_IN_FLIGHT) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#sendWaiting();
    });
  }

  #sendWaiting(): void {
    this.#expire();
    while (this.#queue.length > 0 && this.#mayAddMessage()) this.#send(this.#queue.splice(0, this.#nextBatchSize()));
    // Waiting behind a message that may be slow: look again once it is.
    if (this.#queue.length > 0 && this.#inFlight.length > 0 && this.#inFlight.length < MAX_IN_FLIGHT && this.#slowTimer === undefined) {
      this.#slowTimer = setTimeout(
        () => {
          this.#slowTimer = undefined;
          this.#schedule();
        },
        Math.max(0, this.#inFlight[0]! + SLOW_ACK_MS - performance.now()),
      );
      this.#slowTimer.unref();
    }
    this.#settleDrained();
  }

  /** Up to MAX_BATCH_MESSAGES; the publishes put back after a failure (at the front) go on their own. */
  #nextBatchSize(): number {
    const putBack = this.#queue[0]!.putBack === true;
    const end = this.#queue.findIndex((w) => (w.putBack === true) !== putBack);
    return Math.min(MAX_BATCH_MESSAGES, end === -1 ? this.#queue.length : end);
  }

  /** See MAX_IN_FLIGHT: none in flight, a full batch waiting, or the oldest in flight slow. */
  #mayAddMessage(): boolean {
    const inFlight = this.#inFlight.length;
    if (inFlight === 0) return true;
    if (inFlight >= MAX_IN_FLIGHT) return false;
    return this.#queue.length >= MAX_BATCH_MESSAGES || performance.now() - this.#inFlight[0]! >= SLOW_ACK_MS;
  }

  #send(batch: Waiting[]): void {
    // Monotonic: a clock stepping back must not make every message in flight look young.
    const sentAt = performance.now();
    this.#inFlight.push(sentAt);
    // The oldest's deadline: no publish waits past its own.
    const deadline = batch[0]!.deadline;
    let sent: Promise<void>;
    try {
      sent =
        batch.length === 1
          ? this.#o.send(batch[0]!.data, batch[0]!.headers, deadline)
          : this.#o.send(encodeBatch(batch), { [BATCH_HEADER]: String(batch.length) }, deadline);
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      () => {
        for (const w of batch) w.resolve();
        this.#done(sentAt);
      },
      (err: unknown) => {
        // Failed at its deadline: those with time left go back to the front (the message may
        // have been stored after all: a second wake-up is harmless), the others fail with its
        // error. Failed before it (the bus closed): all fail, nothing would cure it.
        const now = Date.now();
        const retry = now >= deadline ? batch.filter((w) => w.deadline > now) : [];
        for (const w of retry) w.putBack = true;
        this.#queue.unshift(...retry);
        for (const w of batch) if (!retry.includes(w)) w.reject(err);
        this.#done(sentAt);
      },
    );
  }

  #done(sentAt: number): void {
    this.#inFlight.splice(this.#inFlight.indexOf(sentAt), 1);
    this.#schedule();
    this.#settleDrained();
  }

  /** Fails what waited past its deadline without being sent. */
  #expire(): void {
    const now = Date.now();
    if (!this.#queue.some((w) => w.deadline <= now)) return;
    const { subject, timeoutMs } = this.#o;
    const expired = new Error(`could not publish to ${subject}: no acknowledgement from NATS JetStream within ${timeoutMs} ms`);
    for (const w of this.#queue) if (w.deadline <= now) w.reject(expired);
    this.#queue = this.#queue.filter((w) => w.deadline > now);
  }

  #settleDrained(): void {
    if (this.#queue.length > 0 || this.#inFlight.length > 0) return;
    const drained = this.#drained;
    this.#drained = [];
    for (const resolve of drained) resolve();
  }
}
