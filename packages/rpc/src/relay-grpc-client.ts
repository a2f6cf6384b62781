import type { SendRequest, SendResult } from '@wirehook/egress';
import { Relay } from './gen/wirehook/relay/v1/relay_pb.ts';
import { createClient, type ClientOptions, type GrpcClient } from './grpc-service.ts';

/** The signed webhook the dispatcher hands the relay: the egress request, with whose connections to use. */
export type RelayDeliverRequest = Pick<SendRequest, 'url' | 'headers' | 'body'> & { poolKey: string };

/**
 * The egress relay over gRPC: the dispatcher's sender for `fixed_ip` endpoints in cluster
 * mode. Failures are data, as for direct sends: a relay that is down or misses the deadline
 * is an attempt that failed with `relay: …` (ours, not the endpoint's), never an exception.
 */
export class RelayGrpcClient {
  readonly #client: GrpcClient<typeof Relay>;
  readonly #address: string;

  /** `deadlineMs` must cover a whole send: waiting for a connection and the attempt, each bounded by the delivery timeout. */
  constructor(options: ClientOptions) {
    // Calls fail fast while the relay is down; a short reconnect backoff means the first sends
    // after it is back find it (grpc-js' default backoff grows to two minutes).
    this.#client = createClient(Relay, {
      ...options,
      channelOptions: { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 2_000, ...options.channelOptions },
    });
    this.#address = options.address;
  }

  async send(request: RelayDeliverRequest): Promise<SendResult> {
    const started = performance.now();
    try {
      const r = await this.#client.rpc.deliver({ url: request.url, poolKey: request.poolKey, headers: request.headers, body: Buffer.from(request.body, 'utf8') });
      return {
        ok: r.ok,
        status: r.status ?? null,
        responseHead: r.responseHead ?? null,
        error: r.error ?? null,
        durationMs: r.durationMs,
        sourceIp: r.sourceIp ?? null,
      };
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      return { ok: false, status: null, responseHead: null, error: `relay: unreachable at ${this.#address} (${detail})`, durationMs: Math.round(performance.now() - started), sourceIp: null };
    }
  }

  close(): void {
    this.#client.close();
  }
}
