import { path, type RequestOptions, type Transport } from '../transport.ts';
import type {
  AlertConditions,
  AlertConditionsUpdate,
  AlertTargetCreated,
  AlertTargetDetail,
  AlertTargetList,
  AlertTest,
  CreateAlertTargetRequest,
} from '../types.ts';

/** `client.alerts`: when failure notifications go out, and where to (per organization). */
export class Alerts {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** The organization's alert conditions (`GET /v1/alert-conditions`, scope logs:read). */
  async getConditions(options: RequestOptions = {}): Promise<AlertConditions> {
    return (await this.#t.request<AlertConditions>({ method: 'GET', path: '/v1/alert-conditions' }, options)).body;
  }

  /** Changes the conditions given, keeps the others; answers all of them (`PUT /v1/alert-conditions`, scope endpoints:write). */
  async updateConditions(body: AlertConditionsUpdate, options: RequestOptions = {}): Promise<AlertConditions> {
    return (await this.#t.request<AlertConditions>({ method: 'PUT', path: '/v1/alert-conditions', body }, options)).body;
  }

  /** Adds a webhook, chat or e-mail target; a webhook target's secret is shown only here (`POST /v1/alert-targets`, scope endpoints:write). */
  async createTarget(body: CreateAlertTargetRequest, options: RequestOptions = {}): Promise<AlertTargetCreated> {
    return (await this.#t.request<AlertTargetCreated>({ method: 'POST', path: '/v1/alert-targets', body }, options)).body;
  }

  /** The organization's targets (`GET /v1/alert-targets`, scope logs:read). */
  async listTargets(options: RequestOptions = {}): Promise<AlertTargetList> {
    return (await this.#t.request<AlertTargetList>({ method: 'GET', path: '/v1/alert-targets' }, options)).body;
  }

  /** A target with its latest notice attempts (`GET /v1/alert-targets/{id}`, scope logs:read). */
  async getTarget(id: string, options: RequestOptions = {}): Promise<AlertTargetDetail> {
    return (await this.#t.request<AlertTargetDetail>({ method: 'GET', path: path`/v1/alert-targets/${id}` }, options)).body;
  }

  /** Sends a sample notice to the target now and answers its first try (`POST /v1/alert-targets/{id}/test`, scope endpoints:write). */
  async testTarget(id: string, options: RequestOptions = {}): Promise<AlertTest> {
    return (await this.#t.request<AlertTest>({ method: 'POST', path: path`/v1/alert-targets/${id}/test` }, options)).body;
  }

  /** Removes a target (`DELETE /v1/alert-targets/{id}`, scope endpoints:write). */
  async deleteTarget(id: string, options: RequestOptions = {}): Promise<void> {
    await this.#t.request<undefined>({ method: 'DELETE', path: path`/v1/alert-targets/${id}` }, options);
  }
}
