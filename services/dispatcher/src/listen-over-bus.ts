// Sends to listener endpoints (`wirehook listen`) in cluster mode. The CLI's connection lives on
// one gateway process, which serves `listenSubject(endpoint id)` on the bus while it holds it;
// the dispatcher asks that subject and gets back what the CLI's local server said.
import { type Bus, listenSubject, NoResponderError, RequestTimeoutError } from '@wirehook/bus';
import { noResponse, timeoutError } from '@wirehook/egress';
import { decodeSendResult, encodeForwardedSend } from '@wirehook/rpc';
import type { SendResult } from './outcome.ts';
import type { Sender } from './webhook-sender.ts';
import type { WebhookRequest } from './webhook-request.ts';

/**
 * The gateway answers a send with its own `timeout` once the attempt's time is up; the
 * request waits this much longer for that answer before it calls the gateway gone.
 */
const ANSWER_MARGIN_MS = 2_000;

/**
 * A listener endpoint's sends over the bus (request/reply; nothing stored). Failures are data,
 * as for every send: no gateway holding the listener's connection is a `connection` error
 * at once, a gateway that never answers a `timeout` — either way the delivery retries as for
 * any endpoint, and reaches the CLI once it is connected again.
 */
export class ListenOverBus implements Sender {
  readonly #bus: Pick<Bus, 'request'>;
  readonly #timeoutMs: number;

  /** `timeoutMs`: the attempt's time limit (DELIVERY_TIMEOUT_MS), which the gateway applies too. */
  constructor(bus: Pick<Bus, 'request'>, timeoutMs: number) {
    this.#bus = bus;
    this.#timeoutMs = timeoutMs;
  }

  async send(request: WebhookRequest): Promise<SendResult> {
    const started = performance.now();
    const failed = (error: string): SendResult => noResponse(error, Math.round(performance.now() - started));
    try {
      // A listener's CLI is the developer's own machine: no client certificate (nor its key) goes over the bus to it.
      const { tls: _none, ...send } = request;
      const answer = await this.#bus.request(listenSubject(request.poolKey), encodeForwardedSend(send), this.#timeoutMs + ANSWER_MARGIN_MS);
      return decodeSendResult(answer);
    } catch (err) {
      if (err instanceof NoResponderError) return failed('connection: no `wirehook listen` is connected for this listener endpoint');
      if (err instanceof RequestTimeoutError) return failed(timeoutError(this.#timeoutMs).message);
      return failed(`connection: the listener could not be asked (${err instanceof Error ? err.message : String(err)})`);
    }
  }
}
