import { Alerts } from './resources/alerts.ts';
import { Consumers } from './resources/consumers.ts';
import { Deliveries } from './resources/deliveries.ts';
import { Endpoints } from './resources/endpoints.ts';
import { EventTypes } from './resources/event-types.ts';
import { Messages } from './resources/messages.ts';
import type { RateLimit } from './rate-limit.ts';
import { type FetchLike, type RequestOptions, type RetryOn429, Transport } from './transport.ts';

/** Options of {@link Wirehook}. */
export interface WirehookOptions {
  /** An API key: `sk_live_…` or `sk_test_…`. It reads and writes only its own environment. */
  apiKey: string;
  /** Where your Wirehook answers; default `http://localhost:8080`. */
  baseUrl?: string | undefined;
  /** A `fetch` to use instead of the global one (a proxy agent, a test double). */
  fetch?: FetchLike | undefined;
  /**
   * Wait and retry on 429 rate_limited: `true` for up to 3 retries, each after `retry-after`
   * seconds (at most 60), or set the bounds. Default: off, the 429 is thrown.
   */
  retryOn429?: boolean | RetryOn429 | undefined;
  /** Per-attempt timeout in ms, answer body included; default 30000, 0 for none. */
  timeoutMs?: number | undefined;
  /**
   * Retries after a network error or a 5xx, for calls that are safe to repeat: reads (GET),
   * PUTs, and sends (each carries an idempotency key, made once per call when you give none).
   * Waits 0.5 s, then 1 s, 2 s … (at most 8 s) between attempts. Default 2; 0 turns retries off.
   * A call's own `maxRetries` option overrides it.
   */
  maxRetries?: number | undefined;
}

/** Default `baseUrl`: a Wirehook started locally with its defaults. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

/**
 * A typed client for the Wirehook API: one method per operation, grouped by resource.
 *
 * ```ts
 * const wirehook = new Wirehook({ apiKey: process.env.WIREHOOK_API_KEY! });
 * const { id } = await wirehook.messages.send({ consumer: 'acme', event_type: 'order.created', payload: { id: 42 } }, { idempotencyKey: 'order-42' });
 * ```
 */
export class Wirehook {
  /** Send, list, page through and read messages. */
  readonly messages: Messages;
  /** Re-send a single delivery. */
  readonly deliveries: Deliveries;
  /** Your customers and their settings-page links. */
  readonly consumers: Consumers;
  /** Endpoints, their secrets and recoveries. */
  readonly endpoints: Endpoints;
  /** Registered event types. */
  readonly eventTypes: EventTypes;
  /** Failure-notification conditions and targets. */
  readonly alerts: Alerts;
  readonly #transport: Transport;

  constructor(options: WirehookOptions) {
    this.#transport = new Transport({ ...options, baseUrl: options.baseUrl ?? DEFAULT_BASE_URL });
    this.messages = new Messages(this.#transport);
    this.deliveries = new Deliveries(this.#transport);
    this.consumers = new Consumers(this.#transport);
    this.endpoints = new Endpoints(this.#transport);
    this.eventTypes = new EventTypes(this.#transport);
    this.alerts = new Alerts(this.#transport);
  }

  /** The base URL requests go to, without a trailing slash. */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /**
   * The `x-ratelimit-*` headers of the latest answer that carried them, from any call of this
   * client (concurrent calls: whichever answered last); undefined before the first.
   */
  get lastRateLimit(): RateLimit | undefined {
    return this.#transport.lastRateLimit;
  }

  /** The API's OpenAPI 3.1 document as this server serves it (`GET /v1/openapi.json`). */
  async openapi(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return (await this.#transport.request<Record<string, unknown>>({ method: 'GET', path: '/v1/openapi.json' }, options)).body;
  }
}
