// Listener endpoints (`wirehook listen`): their webhooks go over the developer's CLI connection,
// not out to the internet. The hub holds the connections this process serves, by endpoint id.
import { type Clock, RESPONSE_HEAD_BYTES } from '@wirehook/core';
import { type EGRESS_ERROR_KINDS, timeoutError } from './egress-error.ts';
import type { SendResult } from './http-egress.ts';
import { headText } from './response-head.ts';
import { noResponse, statusError } from './http-egress.ts';

/** One listener's connection, as the hub uses it: frames out as JSON text. */
export interface ListenerConnection {
  send(frame: string): void;
}

/** A webhook, sent to the CLI (the signed request as it would be POSTed). */
export interface ListenRequestFrame {
  type: 'request';
  /** Names the answer. */
  id: string;
  headers: Record<string, string>;
  body: string;
  /** How long Wirehook waits for the answer (the attempt's time limit): the CLI gives its local server no longer. */
  timeout_ms: number;
}

/** The CLI's answer: what its `--forward-to` server said, or why it could not be reached. */
export interface ListenResponseFrame {
  type: 'response';
  id: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** The local server's time, as the CLI measured it. */
  duration_ms?: number;
  /** `<kind>: <detail>` when no response came (`connection: …`, `timeout: …`). */
  error?: string;
}

/** What the hub sends: the endpoint (`poolKey`) and the signed request. */
export interface ListenSend {
  poolKey: string;
  headers: Record<string, string>;
  body: string;
}

/** What serving listener connections needs of a hub: attach and detach them, pass their answers on, drain it. */
export interface ListenerRegistry extends Pick<ListenHub, 'attach' | 'detach' | 'connected' | 'answer' | 'drain'> {
  /** Why no listener can be served now (cluster mode: NATS not reached yet), or null. */
  unavailable?(): string | null;
  /** Whether another process holds a connection of the listener (cluster mode); in doubt, true. */
  servedElsewhere?(endpointId: string): Promise<boolean>;
}

interface Waiting {
  connection: ListenerConnection;
  start: number;
  timer: NodeJS.Timeout;
  done(result: SendResult): void;
}

/** Kinds of failure a CLI may report; anything else is read as `connection`. */
const REPORTABLE = new Set<string>(['connection', 'timeout', 'dns', 'tls', 'redirect'] satisfies (typeof EGRESS_ERROR_KINDS)[number][]);

/**
 * The listener connections of this process, by endpoint id, and the webhooks waiting for their
 * answers. A send to a listener with no connection here, or whose connection goes while it
 * waits, fails as `connection` (the delivery retries as for any endpoint); one unanswered
 * within the attempt's time limit fails as `timeout`.
 */
export class ListenHub {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #connections = new Map<string, ListenerConnection>();
  readonly #waiting = new Map<string, Waiting>();
  #next = 0;
  /** Set by drain (and close): sends are refused; `ended` once none waits; `release` each connection once none of its own waits. */
  #drain: { promise: Promise<void>; ended: () => void; release: (connection: ListenerConnection) => void } | undefined;

  constructor(options: { clock: Clock; timeoutMs: number }) {
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs;
  }

  /** `connection` now receives the endpoint's webhooks (a reconnect replaces the old one). */
  attach(endpointId: string, connection: ListenerConnection): void {
    this.#connections.set(endpointId, connection);
  }

  /** The connection is gone: what waits on it fails as `connection`. */
  detach(endpointId: string, connection: ListenerConnection): void {
    if (this.#connections.get(endpointId) === connection) this.#connections.delete(endpointId);
    for (const [id, waiting] of this.#waiting) {
      if (waiting.connection === connection) this.#settle(id, this.#failed('connection: the listener’s connection closed before it answered', waiting.start));
    }
  }

  connected(endpointId: string): boolean {
    return this.#connections.has(endpointId);
  }

  /** An answer from a connection; one for no waiting send (late, or another connection's) is ignored. */
  answer(connection: ListenerConnection, frame: ListenResponseFrame): void {
    const waiting = this.#waiting.get(frame.id);
    if (waiting === undefined || waiting.connection !== connection) return;
    this.#settle(frame.id, this.#result(frame, waiting.start));
  }

  send(request: ListenSend): Promise<SendResult> {
    const start = this.#clock.now();
    // Nothing is sent: the delivery retries on its schedule.
    if (this.#drain !== undefined) return Promise.resolve(this.#failed('connection: Wirehook is stopping here; `wirehook listen` reconnects', start));
    const connection = this.#connections.get(request.poolKey);
    if (connection === undefined) return Promise.resolve(this.#failed('connection: no `wirehook listen` is connected for this listener endpoint', start));
    const id = `${start}-${++this.#next}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#settle(id, this.#failed(timeoutError(this.#timeoutMs).message, start)), this.#timeoutMs);
      this.#waiting.set(id, { connection, start, timer, done: resolve });
      const frame: ListenRequestFrame = { type: 'request', id, headers: request.headers, body: request.body, timeout_ms: this.#timeoutMs };
      try {
        connection.send(JSON.stringify(frame));
      } catch (err) {
        this.#settle(id, this.#failed(`connection: ${err instanceof Error ? err.message : String(err)}`, start));
      }
    });
  }

  /**
   * The first step of a stop: new sends fail at once (none is sent); each connection with
   * nothing waiting is `release`d at once (its socket may close: its CLI reconnects elsewhere),
   * each other one as its last waiting send is answered or times out. Resolves once none waits,
   * or after `withinMs` (the rest then fail as `close` fails them: sent again, though their local
   * server may have had them). A second call gets the first's promise.
   */
  drain(withinMs: number = this.#timeoutMs, release: (connection: ListenerConnection) => void = () => {}): Promise<void> {
    if (this.#drain !== undefined) return this.#drain.promise;
    let ended = () => {};
    const promise = new Promise<void>((resolve) => (ended = resolve));
    this.#drain = { promise, ended, release };
    const timer = setTimeout(ended, withinMs);
    void promise.then(() => clearTimeout(timer));
    for (const connection of new Set(this.#connections.values())) if (!this.#holds(connection)) release(connection);
    if (this.#waiting.size === 0) ended();
    return promise;
  }

  /** Fails every waiting send (the process stops). */
  close(): void {
    this.#drain ??= { promise: Promise.resolve(), ended: () => {}, release: () => {} };
    for (const [id, waiting] of this.#waiting) this.#settle(id, this.#failed('connection: Wirehook stopped before the listener answered', waiting.start));
    this.#connections.clear();
  }

  /** Whether a send waits on `connection`. */
  #holds(connection: ListenerConnection): boolean {
    for (const waiting of this.#waiting.values()) if (waiting.connection === connection) return true;
    return false;
  }

  #settle(id: string, result: SendResult): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.done(result);
    if (this.#drain === undefined) return;
    if (!this.#holds(waiting.connection)) this.#drain.release(waiting.connection);
    if (this.#waiting.size === 0) this.#drain.ended();
  }

  #failed(error: string, start: number): SendResult {
    return noResponse(error, this.#clock.now() - start);
  }

  #result(frame: ListenResponseFrame, start: number): SendResult {
    const status = frame.status;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
      const reported = typeof frame.error === 'string' ? frame.error.slice(0, 500) : 'the listener sent no status';
      const kind = reported.split(':', 1)[0] ?? '';
      return this.#failed(REPORTABLE.has(kind) ? reported : `connection: ${reported}`, start);
    }
    const headers = frame.headers ?? {};
    const bytes = Buffer.from(typeof frame.body === 'string' ? frame.body : '', 'utf8');
    const cut = bytes.length > RESPONSE_HEAD_BYTES;
    return {
      ok: status >= 200 && status < 300,
      status,
      responseHead: headText({ bytes: cut ? bytes.subarray(0, RESPONSE_HEAD_BYTES) : bytes, ended: !cut }),
      error: statusError(status, headers['location']),
      durationMs: this.#clock.now() - start,
      sourceIp: null,
      retryAfter: headers['retry-after'] ?? null,
    };
  }
}
