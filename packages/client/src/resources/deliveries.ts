import { path, type RequestOptions, type Transport } from '../transport.ts';
import { paginate } from '../paging.ts';
import type { AttemptRow, AttemptRowPage, Delivery, ListDeliveryAttemptsQuery } from '../types.ts';

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
   * One page of a delivery's attempts, newest first (`GET /v1/deliveries/{id}/attempts`, scope
   * logs:read): a delivery shows its newest 20; its `attempts_next_cursor` starts the older ones.
   */
  async attempts(id: string, query: ListDeliveryAttemptsQuery = {}, options: RequestOptions = {}): Promise<AttemptRowPage> {
    return (await this.#t.request<AttemptRowPage>({ method: 'GET', path: path`/v1/deliveries/${id}/attempts`, query }, options)).body;
  }

  /** Every attempt of a delivery from `query.cursor` (the newest when absent), fetched page by page as the loop goes. */
  iterateAttempts(id: string, query: ListDeliveryAttemptsQuery = {}, options: RequestOptions = {}): AsyncGenerator<AttemptRow, void, undefined> {
    return paginate((cursor) => this.attempts(id, { ...query, cursor }, options), query.cursor);
  }

  /**
   * Sends a delivery again at once, as the same message (same webhook-id); answers the delivery
   * as queued (`POST /v1/deliveries/{id}/retry`, scope messages:retry). 409 when its endpoint
   * is paused, disabled or deleted, or the delivery has 100 attempts.
   */
  async retry(id: string, options: RequestOptions = {}): Promise<Delivery> {
    return (await this.#t.request<Delivery>({ method: 'POST', path: path`/v1/deliveries/${id}/retry` }, options)).body;
  }
}
