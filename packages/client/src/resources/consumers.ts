import { paginate } from '../paging.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';
import type { Consumer, ConsumerPage, CreateConsumerRequest, ListConsumersQuery, PortalLink, PortalLinkRequest } from '../types.ts';

/** `client.consumers`: your customers, and links to their settings page. */
export class Consumers {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** One page of consumers (`GET /v1/consumers`, scope logs:read). */
  async list(query: ListConsumersQuery = {}, options: RequestOptions = {}): Promise<ConsumerPage> {
    return (await this.#t.request<ConsumerPage>({ method: 'GET', path: '/v1/consumers', query }, options)).body;
  }

  /** Every consumer, fetched page by page as the loop goes. */
  iterate(query: ListConsumersQuery = {}, options: RequestOptions = {}): AsyncGenerator<Consumer, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, options), query.cursor);
  }

  /** One consumer by its id (con_…); 404 not_found in another environment (`GET /v1/consumers/{id}`, scope logs:read). */
  async get(id: string, options: RequestOptions = {}): Promise<Consumer> {
    return (await this.#t.request<Consumer>({ method: 'GET', path: path`/v1/consumers/${id}` }, options)).body;
  }

  /** Creates a consumer; 409 conflict when its external_id exists (`POST /v1/consumers`, scope consumers:write). */
  async create(body: CreateConsumerRequest, options: RequestOptions = {}): Promise<Consumer> {
    return (await this.#t.request<Consumer>({ method: 'POST', path: '/v1/consumers', body }, options)).body;
  }

  /**
   * A link to the consumer's settings page, valid 15 minutes; only `frame_origin` may embed it
   * (`POST /v1/consumers/{id}/portal`, scope endpoints:write). 402 plan_limit on the Free plan.
   */
  async portalLink(id: string, body: PortalLinkRequest = {}, options: RequestOptions = {}): Promise<PortalLink> {
    return (await this.#t.request<PortalLink>({ method: 'POST', path: path`/v1/consumers/${id}/portal`, body }, options)).body;
  }
}
