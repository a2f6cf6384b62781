import { path, type RequestOptions, type Transport } from '../transport.ts';
import type { CreateEventTypeRequest, EventCatalogDocument, EventType, EventTypeList, EventTypeVersionList, UpdateEventTypeRequest } from '../types.ts';

/** `client.eventTypes`: the event types offered when choosing what an endpoint receives. */
export class EventTypes {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Every event type, by name, unpaged (`GET /v1/event-types`, any key of the environment). */
  async list(options: RequestOptions = {}): Promise<EventTypeList> {
    return (await this.#t.request<EventTypeList>({ method: 'GET', path: '/v1/event-types' }, options)).body;
  }

  /** Registers an event type; 409 conflict when the name exists (`POST /v1/event-types`, scope endpoints:write). */
  async create(body: CreateEventTypeRequest, options: RequestOptions = {}): Promise<EventType> {
    return (await this.#t.request<EventType>({ method: 'POST', path: '/v1/event-types', body }, options)).body;
  }

  /** One event type with its schema and examples (`GET /v1/event-types/{name}`, any key of the environment). */
  async get(name: string, options: RequestOptions = {}): Promise<EventType> {
    return (await this.#t.request<EventType>({ method: 'GET', path: path`/v1/event-types/${name}` }, options)).body;
  }

  /** Changes its catalog entry: a changed schema makes a new version (`PATCH /v1/event-types/{name}`, scope endpoints:write). */
  async update(name: string, body: UpdateEventTypeRequest, options: RequestOptions = {}): Promise<EventType> {
    return (await this.#t.request<EventType>({ method: 'PATCH', path: path`/v1/event-types/${name}`, body }, options)).body;
  }

  /** Its earlier schemas, newest first (`GET /v1/event-types/{name}/versions`). */
  async versions(name: string, options: RequestOptions = {}): Promise<EventTypeVersionList> {
    return (await this.#t.request<EventTypeVersionList>({ method: 'GET', path: path`/v1/event-types/${name}/versions` }, options)).body;
  }

  /** The catalog as an OpenAPI 3.1 document, one `webhooks` entry per event type (`GET /v1/event-types/openapi.json`). */
  async exportOpenApi(options: RequestOptions = {}): Promise<EventCatalogDocument> {
    return (await this.#t.request<EventCatalogDocument>({ method: 'GET', path: '/v1/event-types/openapi.json' }, options)).body;
  }
}
