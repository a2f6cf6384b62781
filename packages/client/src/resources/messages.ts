import { idempotencyKey, idempotencyKeyHeader } from '../idempotency-key.ts';
import { integerHeader } from '../rate-limit.ts';
import { paginate } from '../paging.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';
import type { ListMessagesQuery, MessageAccepted, MessageDetail, MessageRow, MessageRowPage, SendMessageRequest } from '../types.ts';

/** Options of {@link Messages.send}. */
export interface SendOptions extends RequestOptions {
  /**
   * Makes the send safe to repeat: the same key returns the same message id for 24 hours
   * (the first message wins). Without one, a send that may be retried (`maxRetries` above 0,
   * the default) gets a fresh key made once for this call and sent on each of its attempts;
   * give your own, kept with the order, to stay safe when your process retries after a restart.
   */
  idempotencyKey?: string | undefined;
}

/** The answer to a send, with the organization's usage this month. */
export interface SentMessage extends MessageAccepted {
  /** Live messages of the organization this UTC month (`x-usage-month`); null when absent. */
  usageMonth: number | null;
  /**
   * Whether the answer is a replay: the idempotency key was seen before, so `id` is the first
   * message's and nothing new was stored or delivered. True when the answer says
   * `idempotent-replayed: true`, false otherwise.
   */
  idempotentReplayed: boolean;
}

/** `client.messages`: send, list, page through and read messages. */
export class Messages {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /**
   * Sends a message to a consumer's endpoints (`POST /v1/messages`, scope messages:send). With an
   * idempotency key (yours, or one made for this call unless `maxRetries` is 0), a network error
   * or a 5xx is retried with the same key, so the message is stored and delivered once.
   */
  async send(body: SendMessageRequest, options: SendOptions = {}): Promise<SentMessage> {
    const key = options.idempotencyKey ?? (this.#t.maxRetries(options) > 0 ? idempotencyKey() : undefined);
    const headers = key === undefined ? undefined : { 'idempotency-key': idempotencyKeyHeader(key) };
    const res = await this.#t.request<MessageAccepted>({ method: 'POST', path: '/v1/messages', body, headers, idempotent: key !== undefined }, options);
    return {
      ...res.body,
      usageMonth: integerHeader(res.headers, 'x-usage-month') ?? null,
      idempotentReplayed: res.headers.get('idempotent-replayed')?.trim().toLowerCase() === 'true',
    };
  }

  /** One page of messages, newest first (`GET /v1/messages`, scope logs:read). */
  async list(query: ListMessagesQuery = {}, options: RequestOptions = {}): Promise<MessageRowPage> {
    return (await this.#t.request<MessageRowPage>({ method: 'GET', path: '/v1/messages', query }, options)).body;
  }

  /**
   * Every message matching `query`, newest first, fetched page by page as the loop goes:
   * `for await (const m of client.messages.iterate({ status: 'failed' }))`.
   */
  iterate(query: ListMessagesQuery = {}, options: RequestOptions = {}): AsyncGenerator<MessageRow, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, options), query.cursor);
  }

  /** A message with its payload and each delivery's attempts (`GET /v1/messages/{id}`, scope logs:read). */
  async get(id: string, options: RequestOptions = {}): Promise<MessageDetail> {
    return (await this.#t.request<MessageDetail>({ method: 'GET', path: path`/v1/messages/${id}` }, options)).body;
  }
}
