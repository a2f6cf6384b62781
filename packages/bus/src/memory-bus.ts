import { within } from '@wirehook/core';
import {
  type Bus,
  type BusMessage,
  type ConsumeOptions,
  type HandleResult,
  NoResponderError,
  type PublishOptions,
  RequestTimeoutError,
  type Subscription,
} from './bus.ts';
import { messageTraceContext, traceHandle, tracePublish } from './bus-tracing.ts';
import { Fifo } from './fifo.ts';

const RETRY_AFTER_THROW_MS = 1_000;
const DEDUPE_WINDOW_MS = 2 * 60_000;

interface Consumer {
  handler: (message: BusMessage) => Promise<HandleResult>;
  concurrency: number;
  running: number;
  stopped: boolean;
}

/**
 * The in-process Bus of embedded mode: a FIFO per subject, handed to the subject's
 * consumers up to their concurrency. Nothing survives a restart — by design, since the
 * store is the truth and the dispatcher's sweeper re-publishes what is due.
 */
export class MemoryBus implements Bus {
  readonly #queues = new Map<string, Fifo<BusMessage>>();
  readonly #consumers = new Map<string, Consumer[]>();
  /** msgId → when first seen, oldest first (Map keeps insertion order). */
  readonly #recentIds = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Who serves each request/reply subject (the newest, as with one server). */
  readonly #servers = new Map<string, (data: Uint8Array) => Promise<Uint8Array>>();
  #closed = false;

  async publish(subject: string, data: Uint8Array, options: PublishOptions = {}): Promise<void> {
    if (this.#closed) throw new Error('bus is closed');
    if (options.msgId !== undefined && this.#isDuplicate(options.msgId)) return;
    await tracePublish('memory', subject, options, async (headers) => {
      this.#enqueue({ subject, data, headers, deliveryCount: 1, traceContext: messageTraceContext(headers) });
    });
  }

  consume(subject: string, handler: (message: BusMessage) => Promise<HandleResult>, options: ConsumeOptions): Subscription {
    const consumer: Consumer = { handler, concurrency: Math.max(1, options.concurrency), running: 0, stopped: false };
    const list = this.#consumers.get(subject) ?? [];
    list.push(consumer);
    this.#consumers.set(subject, list);
    queueMicrotask(() => this.#pump(subject));
    return {
      stop: async () => {
        consumer.stopped = true;
        this.#consumers.set(
          subject,
          (this.#consumers.get(subject) ?? []).filter((c) => c !== consumer),
        );
        while (consumer.running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
  }

  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array>): Subscription {
    this.#servers.set(subject, handler);
    return {
      stop: async () => {
        if (this.#servers.get(subject) === handler) this.#servers.delete(subject);
      },
    };
  }

  async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.#closed) throw new Error('bus is closed');
    const handler = this.#servers.get(subject);
    if (handler === undefined) throw new NoResponderError(subject);
    return within(handler(data), timeoutMs, () => new RequestTimeoutError(subject, timeoutMs));
  }

  /** In-process: answers while open. */
  async ping(): Promise<void> {
    if (this.#closed) throw new Error('bus is closed');
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#servers.clear();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(
      [...this.#consumers.values()].flat().map(async (c) => {
        c.stopped = true;
        while (c.running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }),
    );
  }

  /** Messages waiting on a subject (not yet handed out). */
  depth(subject: string): number {
    return this.#queues.get(subject)?.length ?? 0;
  }

  #isDuplicate(msgId: string): boolean {
    const now = Date.now();
    // Expired ids leave from the front, so each publish does only the work of what expired.
    for (const [id, at] of this.#recentIds) {
      if (now - at < DEDUPE_WINDOW_MS) break;
      this.#recentIds.delete(id);
    }
    if (this.#recentIds.has(msgId)) return true;
    this.#recentIds.set(msgId, now);
    return false;
  }

  #enqueue(message: BusMessage): void {
    let queue = this.#queues.get(message.subject);
    if (queue === undefined) this.#queues.set(message.subject, (queue = new Fifo()));
    queue.push(message);
    this.#pump(message.subject);
  }

  #pump(subject: string): void {
    const queue = this.#queues.get(subject);
    if (!queue) return;
    for (const consumer of this.#consumers.get(subject) ?? []) {
      while (queue.length > 0 && !consumer.stopped && consumer.running < consumer.concurrency) {
        const message = queue.shift()!;
        consumer.running++;
        void this.#run(consumer, message);
      }
    }
  }

  async #run(consumer: Consumer, message: BusMessage): Promise<void> {
    let result: HandleResult;
    try {
      result = await traceHandle('memory', message, consumer.handler);
    } catch {
      result = { retryInMs: RETRY_AFTER_THROW_MS };
    }
    consumer.running--;
    if (result !== 'ack' && !this.#closed) {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (!this.#closed) this.#enqueue({ ...message, deliveryCount: message.deliveryCount + 1 });
      }, result.retryInMs);
      timer.unref();
      this.#timers.add(timer);
    }
    this.#pump(message.subject);
  }
}
