import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { BusMessage, HandleResult } from '../bus.ts';
import { messageTraceContext, traceHandle } from '../bus-tracing.ts';
import { BATCH_HEADER, decodeBatch } from './batch-codec.ts';
import { MAX_BATCH_MESSAGES } from './publish-batcher.ts';
import type { StreamSpec } from './streams.ts';

/** Where the NATS adapter reports trouble it recovers from by itself (a pino logger fits). */
export interface NatsBusLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface PullWorkerOptions {
  js: JetStreamClient;
  spec: StreamSpec;
  handler: (message: BusMessage) => Promise<HandleResult>;
  /** Most messages this worker holds unacknowledged (pulled and not yet acked or nak'ed). */
  concurrency: number;
  /** How long one pull request waits on the server for messages. */
  pullExpiresMs: number;
  /** Redelivery delay after a handler throws. */
  retryAfterThrowMs: number;
  /** True once the connection is closed for good: the worker then ends. */
  isClosed: () => boolean;
  logger: NatsBusLogger | undefined;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Pulls from a stream's shared durable consumer and runs the handler on each message. It
 * only asks for as many messages as it has free slots, so it never holds more than
 * `concurrency` unacknowledged ones: the rest stay on the server for the other replicas.
 * While a handler runs, an in-progress signal is sent every third of the ack wait so a long
 * send is not handed out twice.
 *
 * A batch (several bus messages in one JetStream message, see PublishBatcher) is handed to
 * the handler message by message, each in its own trace, and at most `concurrency` handlers
 * run at once, batched or not; the batch's messages beyond that wait here for a slot. A pull
 * on a batched stream asks for the free slots ÷ MAX_BATCH_MESSAGES JetStream messages (at
 * least one), so a worker holds at most `concurrency` + 15 bus messages and leaves the rest to
 * the other replicas. The JetStream message is acked once all of its bus messages are handled,
 * or handed out again, whole, after the longest delay any of them asked for (so none comes
 * back sooner than it asked). Bus messages not yet started when the worker stops are not
 * started: their batch is handed back once those running end.
 */
export class PullWorker {
  readonly #o: PullWorkerOptions;
  /** One per JetStream message held (pulled, not yet acked or nak'ed). */
  readonly #running = new Set<Promise<void>>();
  /** Handlers running. */
  #handling = 0;
  /** Bus messages waiting for a handler slot, first come first served. */
  readonly #waiting: (() => void)[] = [];
  /** Wakes the pull loop when a bus message is done (a slot may be free to pull for). */
  #freed: (() => void) | undefined;

  readonly #loop: Promise<void>;
  #batch: ConsumerMessages | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;

  constructor(options: PullWorkerOptions) {
    this.#o = { ...options, concurrency: Math.max(1, Math.floor(options.concurrency)) };
    this.#loop = this.#run();
  }

  /** Stops pulling, then waits for the running handlers and their acks. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    this.#freed?.();
    // Bus messages waiting for a slot are handed back now, each in a slot of its own (see #handleOne).
    for (const start of this.#waiting.splice(0)) {
      this.#handling++;
      start();
    }
    await this.#batch?.close();
    await this.#loop;
    await Promise.all(this.#running);
  }

  /** Bus messages held: handled now, or waiting for a slot (each of a message started is one or the other from the start). */
  get #held(): number {
    return this.#handling + this.#waiting.length;
  }

  get #done(): boolean {
    return this.#stopped || this.#o.isClosed();
  }

  async #run(): Promise<void> {
    const { js, spec, concurrency, logger } = this.#o;
    let consumer: Consumer | undefined;
    let failures = 0;
    while (!this.#done) {
      try {
        consumer ??= await js.consumers.get(spec.stream, spec.consumer);
        if (this.#held >= concurrency) {
          // Any bus message done, not a whole JetStream message: one slow message of a batch must not stop the pulls.
          await new Promise<void>((resolve) => (this.#freed = resolve));
          continue;
        }
        // As if every message were a full batch: a worker holds at most its concurrency and 15 more.
        const perMessage = this.#o.spec.batched ? MAX_BATCH_MESSAGES : 1;
        await this.#pull(consumer, Math.max(1, Math.floor((concurrency - this.#held) / perMessage)));
        failures = 0;
      } catch (err) {
        if (this.#done) break;
        failures++;
        logger?.warn({ err, stream: spec.stream, consumer: spec.consumer }, 'pulling from JetStream failed; retrying');
        await this.#sleep(Math.min(MAX_BACKOFF_MS, 50 * 2 ** failures));
      }
    }
  }

  /** One pull request for up to `max` messages; each is started as it arrives. */
  async #pull(consumer: Consumer, max: number): Promise<void> {
    const { pullExpiresMs, spec, logger } = this.#o;
    const batch = await consumer.fetch({ max_messages: max, expires: pullExpiresMs });
    this.#batch = batch;
    // The server ends every pull by its expiry. One lost in a server restart can leave the
    // client's iterator open for good (nats.js re-arms it only when a consumer lookup after the
    // reconnect succeeds): idle past twice the expiry, it is closed here and a new pull is made.
    // Re-armed by every message, so a batch still delivering (a stalled event loop) is not cut.
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(
        () => {
          logger?.warn({ stream: spec.stream, consumer: spec.consumer, pullExpiresMs }, 'a JetStream pull outlived its expiry; pulling again');
          void batch.close();
        },
        2 * pullExpiresMs + 1_000,
      );
    };
    arm();
    try {
      // Not awaited: the iterator below is what runs the close (awaiting it first would wait for ever).
      if (this.#stopped) void batch.close();
      for await (const msg of batch) {
        arm();
        // Arrived as we stopped: hand it straight back to the other consumers.
        if (this.#stopped) this.#settle(msg, () => msg.nak());
        else this.#start(msg);
      }
    } finally {
      clearTimeout(watchdog);
      this.#batch = undefined;
    }
  }

  #start(msg: JsMsg): void {
    const run: Promise<void> = this.#handle(msg).finally(() => this.#running.delete(run));
    this.#running.add(run);
  }

  async #handle(msg: JsMsg): Promise<void> {
    const { spec, logger } = this.#o;
    let messages: BusMessage[];
    try {
      messages = busMessages(msg);
    } catch (err) {
      // It can never be read: handing it out again would loop forever. (A dispatch job's delivery is still due in the store.)
      logger?.warn({ err, subject: msg.subject }, 'a JetStream message is not a readable batch; dropped');
      this.#settle(msg, () => msg.term());
      return;
    }
    const inProgress = setInterval(() => this.#settle(msg, () => msg.working()), Math.max(100, spec.ackWaitMs / 3));
    let results: HandleResult[];
    try {
      results = await Promise.all(messages.map((message) => this.#handleOne(message)));
    } finally {
      clearInterval(inProgress);
    }
    const retries = results.flatMap((result) => (result === 'ack' ? [] : [Math.max(0, Math.round(result.retryInMs))]));
    this.#settle(msg, () => (retries.length === 0 ? msg.ack() : msg.nak(Math.max(...retries))));
  }

  /** Runs the handler on one bus message once a slot is free; a throw is a retry. */
  async #handleOne(message: BusMessage): Promise<HandleResult> {
    const { handler, retryAfterThrowMs, logger } = this.#o;
    if (this.#handling >= this.#o.concurrency) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#handling++;
    try {
      // Stopped while it waited: handed back to the other consumers, never started.
      if (this.#stopped) return { retryInMs: 0 };
      return await traceHandle('nats', message, handler);
    } catch (err) {
      logger?.warn({ err, subject: message.subject }, 'bus handler threw; the message is handed out again');
      return { retryInMs: retryAfterThrowMs };
    } finally {
      // The slot passes to the next waiting message, or is freed.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#handling--;
      this.#freed?.();
      this.#freed = undefined;
    }
  }

  /** Acks are fire-and-forget; one that cannot be sent only means a redelivery after the ack wait. */
  #settle(msg: JsMsg, send: () => void): void {
    try {
      send();
    } catch (err) {
      this.#o.logger?.warn({ err, subject: msg.subject }, 'could not answer JetStream; the message comes back after the ack wait');
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The bus messages of a JetStream message: the items of a batch, or the message itself. */
function busMessages(msg: JsMsg): BusMessage[] {
  const { deliveryCount } = msg.info;
  if (msg.headers?.has(BATCH_HEADER)) {
    return decodeBatch(msg.data).map(({ data, headers }) => ({
      subject: msg.subject,
      data,
      headers,
      deliveryCount,
      traceContext: messageTraceContext(headers),
    }));
  }
  const headers = publishedHeaders(msg);
  return [{ subject: msg.subject, data: msg.data, headers, deliveryCount, traceContext: messageTraceContext(headers) }];
}

/** Headers as published: the `Nats-` ones (message id, status) are the transport's, not the sender's. */
function publishedHeaders(msg: JsMsg): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const key of msg.headers?.keys() ?? []) {
    if (!/^nats-/i.test(key)) headers[key] = msg.headers!.get(key);
  }
  return headers;
}
