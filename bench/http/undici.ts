// undici for the bench's HTTP clients. The root package does not depend on it, so it is
// loaded from @wirehook/egress's dependencies (the version Wirehook itself sends with), and
// typed here with only the few members the bench uses.
import { createRequire } from 'node:module';

/** A response as the bench reads it. */
export interface UndiciResponse {
  statusCode: number;
  body: { text(): Promise<string>; dump(): Promise<void> };
}

/** One request through a pool. */
export interface UndiciRequest {
  path: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A keep-alive connection pool to one origin. */
export interface UndiciPool {
  request(options: UndiciRequest): Promise<UndiciResponse>;
  close(): Promise<void>;
  /** Its connections open now (undici's PoolStats). */
  readonly stats: { connected: number };
}

/** TLS of a pool's connections: CAs trusted beside Node's, and the name checked (SNI) when the origin is an address. */
export interface PoolTls {
  ca?: string;
  servername?: string;
}

/** How long a pool's connections and requests may take, as Wirehook's egress sets them (the floor's pools). */
export interface PoolTimeouts {
  /** Longest an idle connection is kept, ms. */
  keepAliveMaxTimeout?: number;
  /** Longest wait for a response's head, and between its body's chunks, ms. */
  headersTimeout?: number;
  bodyTimeout?: number;
}

interface UndiciModule {
  Pool: new (origin: string, options: { connections: number; pipelining?: number; connect?: PoolTls } & PoolTimeouts) => UndiciPool;
}

const require = createRequire(new URL('../../packages/egress/package.json', import.meta.url));
const undici = require('undici') as UndiciModule;

/** A keep-alive pool of `connections` to `origin` (no pipelining), its TLS as `tls` says. */
export function createPool(origin: string, connections: number, tls?: PoolTls, timeouts: PoolTimeouts = {}): UndiciPool {
  return new undici.Pool(origin, { connections, pipelining: 1, ...(tls ? { connect: tls } : {}), ...timeouts });
}
