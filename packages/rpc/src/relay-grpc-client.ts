import { relayCallMs } from '@wirehook/core/without-schemas';
import { noResponse, type SendResult, type TokenFetch } from '@wirehook/egress';
import { Relay } from './gen/wirehook/relay/v1/relay_pb.ts';
import { createClient, DEFAULT_DEADLINE_MS, type ClientOptions, type GrpcClient } from './grpc-service.ts';
import { relayCallError } from './relay-call-error.ts';
import { deliverRequestOf, type ForwardedSend, sendResultOf, tokenRequestOf } from './send-codec.ts';

/** The signed webhook the dispatcher hands the relay: the egress request, with whose connections to use. */
export type RelayDeliverRequest = ForwardedSend;

export interface RelayClientOptions extends ClientOptions {
  /**
   * The dispatcher's DELIVERY_TIMEOUT_MS. Sent with each call, so the relay keeps the send to it
   * when its own is longer, and the calls' deadline unless `deadlineMs` is given: core's
   * `relayCallMs` of it, a whole send (a wait for a connection and the attempt) and 5 s.
   */
  deliveryTimeoutMs?: number;
}

/**
 * The egress relay over gRPC: the dispatcher's sender for `fixed_ip` endpoints in cluster
 * mode. Failures are data, as for direct sends: a relay that is down, misses the deadline or
 * refuses the call is an attempt that failed with `relay: …` (ours, not the endpoint's; see
 * relayCallError), never an exception.
 */
export class RelayGrpcClient {
  readonly #client: GrpcClient<typeof Relay>;
  readonly #address: string;
  readonly #deadlineMs: number;
  readonly #timeoutMs: { timeoutMs: number } | undefined;

  /** A `deadlineMs` given must cover a whole send: core's `relayCallMs`. */
  constructor(options: RelayClientOptions) {
    const { deliveryTimeoutMs, ...clientOptions } = options;
    if (deliveryTimeoutMs !== undefined && !(Number.isInteger(deliveryTimeoutMs) && deliveryTimeoutMs > 0)) {
      throw new RangeError(`deliveryTimeoutMs must be a positive whole number of milliseconds, got ${deliveryTimeoutMs}`);
    }
    const deadlineMs = options.deadlineMs ?? (deliveryTimeoutMs === undefined ? DEFAULT_DEADLINE_MS : relayCallMs(deliveryTimeoutMs));
    // A shorter deadline would give calls up while the relay still keeps to the timeout it was sent.
    if (deliveryTimeoutMs !== undefined && deadlineMs < relayCallMs(deliveryTimeoutMs)) {
      throw new RangeError(`deadlineMs ${deadlineMs} is shorter than a relay call of a ${deliveryTimeoutMs} ms send (${relayCallMs(deliveryTimeoutMs)} ms)`);
    }
    // Calls fail fast while the relay is down; a short reconnect backoff means the first sends
    // after it is back find it (grpc-js' default backoff grows to two minutes).
    this.#client = createClient(Relay, {
      ...clientOptions,
      deadlineMs,
      channelOptions: { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 2_000, ...options.channelOptions },
    });
    this.#address = options.address;
    this.#deadlineMs = deadlineMs;
    this.#timeoutMs = deliveryTimeoutMs === undefined ? undefined : { timeoutMs: deliveryTimeoutMs };
  }

  async send(request: RelayDeliverRequest): Promise<SendResult> {
    const started = performance.now();
    try {
      return sendResultOf(await this.#client.rpc.deliver({ ...deliverRequestOf(request), ...this.#timeoutMs }));
    } catch (err) {
      const error = relayCallError(err, this.#address, this.#deadlineMs);
      return noResponse(error, Math.round(performance.now() - started));
    }
  }

  /** An OAuth token for a fixed_ip endpoint, fetched by the relay from the fixed IP pool; a failed call is a `relay:` result, as for send. */
  async fetchToken(fetch: TokenFetch): Promise<SendResult> {
    const started = performance.now();
    try {
      const { answer } = await this.#client.rpc.fetchToken({ ...tokenRequestOf(fetch), ...this.#timeoutMs });
      return answer ? sendResultOf(answer) : noResponse('relay: the relay answered a token request with nothing', Math.round(performance.now() - started));
    } catch (err) {
      return noResponse(relayCallError(err, this.#address, this.#deadlineMs), Math.round(performance.now() - started));
    }
  }

  close(): void {
    this.#client.close();
  }
}
