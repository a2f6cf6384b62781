// `wirehook listen` in cluster mode: the CLI's WebSocket lands on one gateway pod, the
// dispatcher that sends to its listener endpoint runs elsewhere. While this process holds a
// listener's connection it serves the listener's subject on the bus (request/reply), so a
// dispatcher's send reaches the CLI through it; once the connection is gone nobody serves the
// subject and the dispatcher's send fails at once as `connection` (and retries).
import { type Bus, listenSubject, NoResponderError, type Subscription } from '@wirehook/bus';
import type { ListenerConnection, ListenerRegistry, ListenHub, ListenResponseFrame } from '@wirehook/egress';
import type { Component, Logger } from '@wirehook/platform';
import { decodeForwardedSend, encodeSendResult } from '@wirehook/rpc';

/** How long the janitor's probe waits for another gateway's answer. */
const PROBE_TIMEOUT_MS = 2_000;

export interface ListenBridgeOptions {
  hub: ListenHub;
  /** Connects to NATS, retrying until it answers or `signal` aborts (connectWithRetry); run in the background. */
  connect: (signal: AbortSignal) => Promise<Pick<Bus, 'serve' | 'request' | 'close'>>;
  logger: Logger;
}

/**
 * The gateway's listener connections (a ListenHub), each served on the bus while connected.
 * NATS is reached in the background: the public API never waits for it, and `listen` answers
 * 503 until it is there. Stopping it stops serving, fails what waits on a connection, and
 * closes the NATS connection.
 */
export class ListenBridge implements ListenerRegistry, Component {
  readonly name = 'listen-bridge';
  readonly #o: ListenBridgeOptions;
  /** Listener endpoint id → its subject's subscription, while a connection of it is here. */
  readonly #served = new Map<string, Subscription>();
  #bus: Pick<Bus, 'serve' | 'request' | 'close'> | undefined;
  #stopped = false;
  /** Ends the background connect's retries at stop: its wait would keep a stopped process alive until the deadline. */
  readonly #connecting = new AbortController();

  constructor(options: ListenBridgeOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    this.#o
      .connect(this.#connecting.signal)
      .then(async (bus) => {
        if (this.#stopped) return await bus.close();
        this.#bus = bus;
      })
      .catch((err: unknown) => {
        if (this.#stopped) return; // the stop ended the retries
        this.#o.logger.error({ err }, 'NATS was not reached: `wirehook listen` stays unavailable on this gateway');
      });
  }

  unavailable(): string | null {
    return this.#bus === undefined ? 'wirehook listen needs NATS, which this gateway has not reached yet; try again in a moment' : null;
  }

  attach(endpointId: string, connection: ListenerConnection): void {
    const { hub } = this.#o;
    hub.attach(endpointId, connection);
    if (this.#served.has(endpointId) || this.#bus === undefined) return; // a reconnect: served already
    this.#served.set(
      endpointId,
      this.#bus.serve(listenSubject(endpointId), async (data) => {
        // An empty request is another gateway's janitor asking whether the listener is held: yes.
        if (data.length === 0) return new Uint8Array();
        // The subject names the endpoint; the payload's own key is not trusted over it.
        return encodeSendResult(await hub.send({ ...decodeForwardedSend(data), poolKey: endpointId }));
      }),
    );
  }

  detach(endpointId: string, connection: ListenerConnection): void {
    this.#o.hub.detach(endpointId, connection);
    if (this.#o.hub.connected(endpointId)) return; // a newer connection of it is still here
    const served = this.#served.get(endpointId);
    this.#served.delete(endpointId);
    served?.stop().catch((err: unknown) => this.#o.logger.warn({ err, endpointId }, 'could not stop serving a listener on NATS'));
  }

  /** Asks the bus whether a gateway serves the listener; no answer in time counts as yes (never remove in doubt). */
  async servedElsewhere(endpointId: string): Promise<boolean> {
    if (this.#bus === undefined) return true;
    try {
      await this.#bus.request(listenSubject(endpointId), new Uint8Array(), PROBE_TIMEOUT_MS);
      return true;
    } catch (err) {
      return !(err instanceof NoResponderError);
    }
  }

  connected(endpointId: string): boolean {
    return this.#o.hub.connected(endpointId);
  }

  answer(connection: ListenerConnection, frame: ListenResponseFrame): void {
    this.#o.hub.answer(connection, frame);
  }

  /** The hub's drain (ListenHub.drain); the subjects stay served meanwhile, so its answers reach the dispatchers. */
  drain(withinMs?: number, release?: (connection: ListenerConnection) => void): Promise<void> {
    return this.#o.hub.drain(withinMs, release);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#connecting.abort(new Error('the gateway is stopping'));
    await Promise.allSettled([...this.#served.values()].map((s) => s.stop()));
    this.#served.clear();
    this.#o.hub.close();
    await this.#bus?.close();
  }
}
