import { path, type RequestOptions, type Transport } from '../transport.ts';
import type { Delivery } from '../types.ts';

/** `client.deliveries`: read or re-send one delivery. */
export class Deliveries {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /**
   * One delivery with its attempts, as the message shows it (`GET /v1/deliveries/{id}`, scope
   * logs:read). 404 for an id of another environment or outside retention.
   */
  async get(id: string, options: RequestOptions = {}): Promise<Delivery> {
    return (await this.#t.request<Delivery>({ method: 'GET', path: path`/v1/deliveries/${id}` }, options)).body;
  }

  /**
   * Sends a delivery again at once, as the same message (same webhook-id); answers the delivery
   * as queued (`POST /v1/deliveries/{id}/retry`, scope messages:retry). 409 when its endpoint
   * is paused, disabled or deleted.
   */
  async retry(id: string, options: RequestOptions = {}): Promise<Delivery> {
    return (await this.#t.request<Delivery>({ method: 'POST', path: path`/v1/deliveries/${id}/retry` }, options)).body;
  }
}
