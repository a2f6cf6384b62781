import { path, type Transport } from '../transport.ts';
import type { AlertConditions, AlertConditionsUpdate, AlertTargetCreated, AlertTargetDetail, AlertTargetList, CreateAlertTargetRequest } from '../types.ts';

/** `client.alerts`: when failure notifications go out, and where to (per organization). */
export class Alerts {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** The organization's alert conditions (`GET /v1/alert-conditions`, scope logs:read). */
  async getConditions(): Promise<AlertConditions> {
    return (await this.#t.request<AlertConditions>({ method: 'GET', path: '/v1/alert-conditions' })).body;
  }

  /** Changes the conditions given, keeps the others; answers all of them (`PUT /v1/alert-conditions`, scope endpoints:write). */
  async updateConditions(body: AlertConditionsUpdate): Promise<AlertConditions> {
    return (await this.#t.request<AlertConditions>({ method: 'PUT', path: '/v1/alert-conditions', body })).body;
  }

  /** Adds a webhook, chat or e-mail target; a webhook target's secret is shown only here (`POST /v1/alert-targets`, scope endpoints:write). */
  async createTarget(body: CreateAlertTargetRequest): Promise<AlertTargetCreated> {
    return (await this.#t.request<AlertTargetCreated>({ method: 'POST', path: '/v1/alert-targets', body })).body;
  }

  /** The organization's targets (`GET /v1/alert-targets`, scope logs:read). */
  async listTargets(): Promise<AlertTargetList> {
    return (await this.#t.request<AlertTargetList>({ method: 'GET', path: '/v1/alert-targets' })).body;
  }

  /** A target with its latest notice attempts (`GET /v1/alert-targets/{id}`, scope logs:read). */
  async getTarget(id: string): Promise<AlertTargetDetail> {
    return (await this.#t.request<AlertTargetDetail>({ method: 'GET', path: path`/v1/alert-targets/${id}` })).body;
  }

  /** Removes a target (`DELETE /v1/alert-targets/{id}`, scope endpoints:write). */
  async deleteTarget(id: string): Promise<void> {
    await this.#t.request<undefined>({ method: 'DELETE', path: path`/v1/alert-targets/${id}` });
  }
}
