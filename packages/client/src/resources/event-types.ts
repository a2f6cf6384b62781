import type { RequestOptions, Transport } from '../transport.ts';
import type { CreateEventTypeRequest, EventType, EventTypeList } from '../types.ts';

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
}
