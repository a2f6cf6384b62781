import { paginate } from '../paging.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';
import type {
  CreateEndpointRequest,
  Endpoint,
  EndpointDetail,
  EndpointPage,
  EndpointStats,
  EndpointStatsQuery,
  EgressIpList,
  EndpointWithSecret,
  ListEndpointsQuery,
  RecoverRequest,
  Recovery,
  RotatedSecret,
  SimulateTransformationRequest,
  TransformationSimulation,
  UpdateEndpointRequest,
} from '../types.ts';

/** `client.endpoints`: the URLs that receive a consumer's webhooks, their secrets and recoveries. */
export class Endpoints {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /**
   * A page of the environment's endpoints, or of one consumer's, by id: up to 1,000, with
   * `next_cursor` for the rest (`GET /v1/endpoints`, scope logs:read).
   */
  async list(query: ListEndpointsQuery = {}, options: RequestOptions = {}): Promise<EndpointPage> {
    return (await this.#t.request<EndpointPage>({ method: 'GET', path: '/v1/endpoints', query }, options)).body;
  }

  /** Every endpoint, fetched page by page as the loop goes. */
  iterate(query: ListEndpointsQuery = {}, options: RequestOptions = {}): AsyncGenerator<Endpoint, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, options), query.cursor);
  }

  /**
   * Creates an endpoint; the answer carries its signing secret, shown only here
   * (`POST /v1/endpoints`, scope endpoints:write). 422 for a URL that is not public https on 443/8443.
   */
  async create(body: CreateEndpointRequest, options: RequestOptions = {}): Promise<EndpointWithSecret> {
    return (await this.#t.request<EndpointWithSecret>({ method: 'POST', path: '/v1/endpoints', body }, options)).body;
  }

  /** An endpoint with its recent attempts, retrying count and latest recovery (`GET /v1/endpoints/{id}`, scope logs:read). */
  async get(id: string, options: RequestOptions = {}): Promise<EndpointDetail> {
    return (await this.#t.request<EndpointDetail>({ method: 'GET', path: path`/v1/endpoints/${id}` }, options)).body;
  }

  /**
   * The endpoint's health over `window` (1h, 24h — the default — or 7d): attempts, successes,
   * failures by class, latency percentiles, deliveries waiting now and a series of buckets
   * (`GET /v1/endpoints/{id}/stats`, scope logs:read).
   */
  async stats(id: string, query: EndpointStatsQuery = {}, options: RequestOptions = {}): Promise<EndpointStats> {
    return (await this.#t.request<EndpointStats>({ method: 'GET', path: path`/v1/endpoints/${id}/stats`, query }, options)).body;
  }

  /**
   * Changes the fields given; `status: 'paused'` holds messages, `'active'` resumes and sends
   * the held ones (`PATCH /v1/endpoints/{id}`, scope endpoints:write).
   */
  async update(id: string, body: UpdateEndpointRequest, options: RequestOptions = {}): Promise<Endpoint> {
    return (await this.#t.request<Endpoint>({ method: 'PATCH', path: path`/v1/endpoints/${id}`, body }, options)).body;
  }

  /** Deletes an endpoint; its open deliveries end as failed (`DELETE /v1/endpoints/{id}`, scope endpoints:write). */
  async delete(id: string, options: RequestOptions = {}): Promise<void> {
    await this.#t.request<undefined>({ method: 'DELETE', path: path`/v1/endpoints/${id}` }, options);
  }

  /**
   * A new signing secret; for 24 hours deliveries are signed with the old one as well
   * (`POST /v1/endpoints/{id}/rotate-secret`, scope endpoints:write).
   */
  async rotateSecret(id: string, options: RequestOptions = {}): Promise<RotatedSecret> {
    return (await this.#t.request<RotatedSecret>({ method: 'POST', path: path`/v1/endpoints/${id}/rotate-secret` }, options)).body;
  }

  /**
   * Runs a transformation on a webhook as a send would, sending nothing
   * (`POST /v1/endpoints/{id}/transformation/simulate`, scope endpoints:write): `body.code`, or the
   * endpoint's stored one. Answers the request that would be sent, a cancel, or the attempt's error.
   */
  async simulateTransformation(id: string, body: SimulateTransformationRequest, options: RequestOptions = {}): Promise<TransformationSimulation> {
    return (await this.#t.request<TransformationSimulation>({ method: 'POST', path: path`/v1/endpoints/${id}/transformation/simulate`, body }, options)).body;
  }

  /**
   * Re-sends the endpoint's failed deliveries of messages created at or after `since`
   * (`POST /v1/endpoints/{id}/recover`, scope messages:retry). 409 conflict when the endpoint
   * is not active or a recovery already runs.
   */
  async recover(id: string, body: RecoverRequest, options: RequestOptions = {}): Promise<Recovery> {
    return (await this.#t.request<Recovery>({ method: 'POST', path: path`/v1/endpoints/${id}/recover`, body }, options)).body;
  }

  /** A recovery's progress (`GET /v1/endpoints/{id}/recoveries/{recovery_id}`, scope logs:read). */
  async getRecovery(id: string, recoveryId: string, options: RequestOptions = {}): Promise<Recovery> {
    return (await this.#t.request<Recovery>({ method: 'GET', path: path`/v1/endpoints/${id}/recoveries/${recoveryId}` }, options)).body;
  }

  /**
   * The addresses `fixed_ip` endpoints are sent from, for customers to allowlist; one taken out
   * of the pool stays listed with `retiring_at` for 30 days (`GET /v1/egress-ips`, any key).
   */
  async egressIps(options: RequestOptions = {}): Promise<EgressIpList> {
    return (await this.#t.request<EgressIpList>({ method: 'GET', path: '/v1/egress-ips' }, options)).body;
  }
}
