import { integerHeader } from '../rate-limit.ts';
import { paginate } from '../paging.ts';
import { path, type Transport } from '../transport.ts';
import type { ListMessagesQuery, MessageAccepted, MessageDetail, MessageRow, MessageRowPage, SendMessageRequest } from '../types.ts';

/** Options of {@link Messages.send}. */
export interface SendOptions {
  /**
   * Makes the send safe to repeat: the same key returns the same message id for 24 hours
   * (the first message wins). Use `idempotencyKey()` for a fresh one and reuse it on retry.
   */
  idempotencyKey?: string;
}

/** The answer to a send, with the organization's usage this month. */
export interface SentMessage extends MessageAccepted {
  /** Live messages of the organization this UTC month (`x-usage-month`); null when absent. */
  usageMonth: number | null;
}

/** `client.messages`: send, list, page through and read messages. */
export class Messages {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Sends a message to a consumer's endpoints (`POST /v1/messages`, scope messages:send). */
  async send(body: SendMessageRequest, options: SendOptions = {}): Promise<SentMessage> {
    const headers = options.idempotencyKey === undefined ? undefined : { 'idempotency-key': options.idempotencyKey };
    const res = await this.#t.request<MessageAccepted>({ method: 'POST', path: '/v1/messages', body, headers });
    return { ...res.body, usageMonth: integerHeader(res.headers, 'x-usage-month') ?? null };
  }

  /** One page of messages, newest first (`GET /v1/messages`, scope logs:read). */
  async list(query: ListMessagesQuery = {}): Promise<MessageRowPage> {
    return (await this.#t.request<MessageRowPage>({ method: 'GET', path: '/v1/messages', query })).body;
  }

  /**
   * Every message matching `query`, newest first, fetched page by page as the loop goes:
   * `for await (const m of client.messages.iterate({ status: 'failed' }))`.
   */
  iterate(query: ListMessagesQuery = {}): AsyncGenerator<MessageRow, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }), query.cursor);
  }

  /** A message with its payload and each delivery's attempts (`GET /v1/messages/{id}`, scope logs:read). */
  async get(id: string): Promise<MessageDetail> {
    return (await this.#t.request<MessageDetail>({ method: 'GET', path: path`/v1/messages/${id}` })).body;
  }
}
