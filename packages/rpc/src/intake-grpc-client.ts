import type { Delivery, DeliveryId, EndpointId, IntakePort, SendMessageInput, SendMessageResult, Tenant } from '@wirehook/core';
import { status as grpcStatus } from '@grpc/grpc-js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { context, type Context } from '@opentelemetry/api';
import { MAX_BATCH_PAYLOAD_CHARS, MAX_BATCH_SENDS } from './call-limits.ts';
import { grpcStatusOf, RpcError } from './errors.ts';
import { MessageIntake, type SendRequestSchema } from './gen/wirehook/intake/v1/intake_pb.ts';
import { startItemClientCall, type ItemCallTrace } from './grpc-tracing.ts';
import { createClient, methodPath, type ClientOptions, type GrpcClient } from './grpc-service.ts';
import { deliveryFromProto, sendInputToProto, sendOutcomeFromProto, sendResultFromProto, tenantToProto } from './intake-codec.ts';

/** Where message-intake listens, and the default deadline of each call (5 s). */
export type IntakeGrpcClientOptions = ClientOptions;

/** After a message-intake answered UNIMPLEMENTED (an older version, mid-upgrade), sends go one a call for this long. */
const BATCH_RETRY_AFTER_MS = 30_000;

const SEND_BATCH = methodPath(MessageIntake.method.sendBatch);

interface Waiting {
  request: MessageInitShape<typeof SendRequestSchema>;
  /** The caller's trace context (a fallback Send call is made in it). */
  context: Context;
  trace: ItemCallTrace;
  resolve: (result: SendMessageResult) => void;
  reject: (err: unknown) => void;
}

/**
 * IntakePort over gRPC: the gateway's message-intake in cluster mode. Each method throws
 * what the embedded MessageIntake throws (same WirehookError subclass, code and message),
 * an UnavailableError when message-intake is unreachable or misses the deadline, or an
 * RpcError for anything else.
 *
 * Sends made during one turn of the event loop go in one SendBatch call (up to
 * MAX_BATCH_SENDS, MAX_BATCH_PAYLOAD_CHARS): a gRPC call costs each side ≈ 50–120 µs of CPU
 * whatever it carries, more than a message. Each send keeps its own answer, error and trace
 * span; a failure of the call itself (deadline, unreachable) fails each of its sends as a
 * Send call would have failed. A message-intake too old for SendBatch is sent Send calls.
 */
export class IntakeGrpcClient implements IntakePort {
  readonly #client: GrpcClient<typeof MessageIntake>;
  readonly #address: string;
  #batch: Waiting[] = [];
  #batchChars = 0;
  #oneByOneUntil = 0;

  constructor(options: IntakeGrpcClientOptions) {
    this.#client = createClient(MessageIntake, options);
    this.#address = options.address;
  }

  // The same rule, bare, stands in the bench's cluster floor (bench/floor/cluster-floor-process.ts): a change reaches both.
  async send(input: SendMessageInput): Promise<SendMessageResult> {
    const request = sendInputToProto(input);
    if (performance.now() < this.#oneByOneUntil) return this.#sendAlone(request);
    const chars = request.body?.payloadJson?.length ?? 0;
    return new Promise((resolve, reject) => {
      if (this.#batch.length > 0 && (this.#batch.length >= MAX_BATCH_SENDS || this.#batchChars + chars > MAX_BATCH_PAYLOAD_CHARS)) this.#flush();
      if (this.#batch.length === 0) setImmediate(() => this.#flush());
      this.#batch.push({ request, context: context.active(), trace: startItemClientCall(SEND_BATCH, this.#address), resolve, reject });
      this.#batchChars += chars;
    });
  }

  /** One send in a Send call of its own (a message-intake without SendBatch). */
  async #sendAlone(request: MessageInitShape<typeof SendRequestSchema>): Promise<SendMessageResult> {
    return sendResultFromProto(await this.#client.rpc.send(request));
  }

  async retryDelivery(tenant: Tenant, id: DeliveryId): Promise<Delivery> {
    const response = await this.#client.rpc.retryDelivery({ tenant: tenantToProto(tenant), deliveryId: id });
    return deliveryFromProto(response.delivery);
  }

  async releaseHeld(tenant: Tenant, endpointId: EndpointId): Promise<number> {
    return (await this.#client.rpc.releaseHeld({ tenant: tenantToProto(tenant), endpointId })).released;
  }

  /** Closes the connection. Sends gathered for the next call go first: they fail unavailable (a 503), as calls made just before a close do. */
  close(): void {
    this.#flush();
    this.#client.close();
  }

  /** Sends the batch gathered so far (a flush scheduled for a batch sent early finds none). */
  #flush(): void {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    this.#batchChars = 0;
    const sends = batch.map(({ request, trace }) => ({ send: request, traceContext: trace.traceContext }));
    this.#client.rpc.sendBatch({ sends }, { untraced: true }).then(
      ({ outcomes }) =>
        batch.forEach((waiting, i) => {
          try {
            succeed(waiting, sendOutcomeFromProto(outcomes[i]));
          } catch (err) {
            fail(waiting, err);
          }
        }),
      (err: unknown) => {
        if (!(err instanceof RpcError && err.code === grpcStatus.UNIMPLEMENTED)) return batch.forEach((waiting) => fail(waiting, err));
        this.#oneByOneUntil = performance.now() + BATCH_RETRY_AFTER_MS;
        for (const waiting of batch) {
          waiting.trace.end(grpcStatus.UNIMPLEMENTED, err.message);
          // As if sent one a call from the start: in the trace of the request it came from.
          context.with(waiting.context, () => this.#sendAlone(waiting.request)).then(waiting.resolve, waiting.reject);
        }
      },
    );
  }
}

/** Settles a batched send with its result, ending its span OK. */
function succeed(waiting: Waiting, result: SendMessageResult): void {
  waiting.trace.end(grpcStatus.OK);
  waiting.resolve(result);
}

/** Settles a batched send with its error, ending its span with the status a call of its own would have had. */
function fail(waiting: Waiting, err: unknown): void {
  waiting.trace.end(grpcStatusOf(err), err instanceof Error ? err.message : String(err));
  waiting.reject(err);
}
