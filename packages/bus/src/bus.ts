// The Bus port: work-queue subjects between services. The store stays the truth; the bus
// only wakes the service that should act (a lost message is found again by a sweeper).
// Adapters: in-process (embedded mode) and NATS JetStream (cluster mode).
import type { Context } from '@opentelemetry/api';

/** One message taken from a subject. */
export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** As published, with the publisher's trace context (`traceparent`) added by the adapter. */
  readonly headers: Readonly<Record<string, string>>;
  /** How many times this message has been handed out (1 on first delivery). */
  readonly deliveryCount: number;
  /**
   * The publisher's trace context, read from the headers (empty when there was none). The
   * handler already runs in a `process <subject>` span continuing it; work that outlives the
   * handler (queued for later) continues the trace with `context.with(traceContext, …)`.
   */
  readonly traceContext: Context;
}

export interface PublishOptions {
  /** De-duplication id: a second publish with the same id inside the window is dropped. */
  msgId?: string;
  /** Sent with the message; the adapter adds the trace context of the publish (unless given here). */
  headers?: Record<string, string>;
}

/** What a handler decides; throwing counts as `retry`. */
export type HandleResult = 'ack' | { retryInMs: number };

export interface ConsumeOptions {
  /** Messages handled at once by this consumer. */
  concurrency: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface Bus {
  /** Publishes in a `publish <subject>` span whose trace context travels in the message headers. */
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void>;
  /**
   * Work-queue consumption: each message goes to one consumer of the subject, is removed on
   * `ack`, and is handed out again after `retryInMs` (or a short default when the handler throws).
   * The handler runs in a `process <subject>` span continuing the publisher's trace. On a
   * subject whose messages an adapter carries in batches (NATS: the dispatch stream), one that
   * asks to be handed out again brings back those that travelled with it, after the longest
   * delay any of them asked for: that subject's handlers must be idempotent.
   */
  consume(subject: string, handler: (message: BusMessage) => Promise<HandleResult>, options: ConsumeOptions): Subscription;
  /**
   * Answers requests on `subject` (request/reply, not a work queue: nothing is stored, a
   * request goes to whoever serves the subject at that moment). The handler's bytes are the
   * answer; a handler that throws sends none (the requester's time runs out).
   */
  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array>): Subscription;
  /**
   * Asks whoever serves `subject` and waits for its answer.
   * @throws NoResponderError at once when nobody serves it; RequestTimeoutError when no answer
   *   came within `timeoutMs` (the server, or the broker, is gone or slow).
   */
  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  /** Resolves once the broker answers (a round trip); rejects when the connection is closed. For readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Nobody serves the subject of a request (see Bus.serve). */
export class NoResponderError extends Error {
  constructor(subject: string) {
    super(`nobody serves ${subject}`);
    this.name = 'NoResponderError';
  }
}

/** A request's answer did not come in time. */
export class RequestTimeoutError extends Error {
  constructor(subject: string, timeoutMs: number) {
    super(`no answer on ${subject} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}
