import { BATCH_HEADER, type BatchedMessage, encodeBatch } from './batch-codec.ts';

/** Most bus messages one JetStream message carries (about 100 bytes each for a dispatch job). */
export const MAX_BATCH_MESSAGES = 64;
/** Most publishes waiting behind the one in flight; beyond it a publish is refused at once. */
export const MAX_WAITING_PUBLISHES = 10_000;

export interface PublishBatcherOptions {
  /** The NATS subject, for error messages. */
  subject: string;
  /** How long a publish may take, waiting included, before it rejects (NatsBus's publishTimeoutMs). */
  timeoutMs: number;
  /**
   * Publishes one JetStream message and resolves on its acknowledgement; retries (a fresh
   * `Nats-Msg-Id` per message) until `deadline` (epoch ms), then rejects.
   */
  send(data: Uint8Array, headers: Record<string, string>, deadline: number): Promise<void>;
}

interface Waiting extends BatchedMessage {
  deadline: number;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group publishing for one subject, as a store's group commit: one JetStream message is in
 * flight at a time, and the publishes made meanwhile go together in the next one (up to
 * MAX_BATCH_MESSAGES, encoded by batch-codec). An idle subject sends at the end of the
 * current event-loop turn, so what one turn publishes (a fan-out message's wake-ups, the
 * messages of one store commit) shares a message. Under load, a batch grows with the time an
 * acknowledgement takes, so the broker's work — a store, a hand-out and an ack per message —
 * is shared by more publishes exactly when it costs most; idle, a publish waits for nothing.
 * A batch of one is sent as a plain message. Every publish settles by its deadline.
 */
export class PublishBatcher {
  readonly #o: PublishBatcherOptions;
  #queue: Waiting[] = [];
  #busy = false;

  constructor(options: PublishBatcherOptions) {
    this.#o = options;
  }

  /** Resolves once the message carrying it is acknowledged by JetStream. */
  add(data: Uint8Array, headers: Record<string, string>): Promise<void> {
    const { subject, timeoutMs } = this.#o;
    if (this.#queue.length >= MAX_WAITING_PUBLISHES) {
      return Promise.reject(new Error(`could not publish to ${subject}: ${MAX_WAITING_PUBLISHES} publishes already wait for NATS JetStream`));
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ data, headers, deadline: Date.now() + timeoutMs, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        setImmediate(() => this.#next());
      }
    });
  }

  /** Sends what waits (after failing what waited past its deadline), then again on the answer. */
  #next(): void {
    const now = Date.now();
    while (this.#queue.length > 0 && this.#queue[0]!.deadline <= now) {
      const { subject, timeoutMs } = this.#o;
      this.#queue.shift()!.reject(new Error(`could not publish to ${subject}: no acknowledgement from NATS JetStream within ${timeoutMs} ms`));
    }
    if (this.#queue.length === 0) {
      this.#busy = false;
      return;
    }
    const batch = this.#queue.splice(0, MAX_BATCH_MESSAGES);
    // The oldest's deadline: each publish settles within its own time.
    const deadline = batch[0]!.deadline;
    const sent =
      batch.length === 1
        ? this.#o.send(batch[0]!.data, { ...batch[0]!.headers }, deadline)
        : this.#o.send(encodeBatch(batch), { [BATCH_HEADER]: String(batch.length) }, deadline);
    sent.then(
      () => batch.forEach((w) => w.resolve()),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
    // What was published meanwhile goes next, gathered until the end of that turn too.
    void sent.catch(() => undefined).finally(() => setImmediate(() => this.#next()));
  }
}
