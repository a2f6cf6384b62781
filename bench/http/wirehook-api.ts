import { createPool, type UndiciPool } from './undici.ts';

/** A JSON answer of the public API. */
export interface ApiReply {
  status: number;
  body: any;
}

/**
 * The harness's client of Wirehook's public API: one keep-alive pool (as many connections
 * as the bench's concurrency), JSON in and out, the key given per call.
 */
export class WirehookApi {
  readonly #pool: UndiciPool;

  constructor(apiUrl: string, connections: number) {
    this.#pool = createPool(apiUrl, connections);
  }

  /** Connections open now (undici opens one for each request it cannot queue on a free one, up to the pool's size). */
  get connected(): number {
    return this.#pool.stats.connected;
  }

  /** Sends `body` (already JSON text, or an object to serialise) and parses the JSON answer; `extra` headers go along. */
  async call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, key: string, body?: unknown, extra: Record<string, string> = {}): Promise<ApiReply> {
    const headers: Record<string, string> = { ...extra, authorization: `Bearer ${key}` };
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await this.#pool.request({ method, path, headers, ...(payload === undefined ? {} : { body: payload }) });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  }

  /** Like `call`, but throws unless the status is `expected`. */
  async expect(expected: number, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, key: string, body?: unknown): Promise<any> {
    const reply = await this.call(method, path, key, body);
    if (reply.status !== expected) {
      throw new Error(`${method} ${path}: expected ${expected}, got ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
