import type { Dispatcher, Pool } from 'undici';
import type { Clock, OAuthClientCredentials } from '@wirehook/core';
import {
  ATTEMPT_TIMEOUT_MS,
  oauthTokenRequest,
  RESPONSE_HEAD_BYTES,
  requiredOnFirstUse,
  systemClock,
  TOKEN_RESPONSE_MAX_BYTES,
} from '@wirehook/core/without-schemas';
import type { AddressPolicy } from './address-policy.ts';
import { classifyError, timeoutError, type EgressFailure } from './egress-error.ts';
import { clientContext, createGuardedConnector, tlsAlertOf, type GuardedConnectorOptions, type SourceAddresses, trustContext } from './guarded-connector.ts';
import type { LookupFn } from './resolve-host.ts';
import { discardRest, headText, readHead } from './response-head.ts';
import { SendSlots } from './send-slots.ts';
import { probeSocket } from './socket-probe.ts';

/** Options for {@link HttpEgress}. */
export interface HttpEgressOptions {
  /** Which addresses and host names may be connected to (checked at every connect). */
  policy: AddressPolicy;
  /** Resolver; default the system's (`getaddrinfo`). */
  lookup?: LookupFn | undefined;
  /**
   * The attempt's limit: from when the request is written to its connection to the status
   * and body head. Default 15000. Waiting for a connection of the pool (and resolving and
   * connecting) has a limit of the same length of its own, before the attempt starts.
   */
  timeoutMs?: number | undefined;
  /** How many bytes of the response body to keep. Default 1024. */
  responseHeadBytes?: number | undefined;
  /**
   * Sends in flight at once per endpoint and origin (`poolKey`; those without one share their
   * origin's). Default 16. The connections are the origin's, shared by its endpoints and
   * opened as its sends need them, so endpoints behind one big receiver do not queue behind
   * each other, and a new endpoint there reuses the connections its neighbours opened.
   */
  connectionsPerOrigin?: number | undefined;
  /** An extra trusted CA certificate (PEM), added to Node's default ones; for tests. */
  ca?: string | Buffer | undefined;
  /** Measures `durationMs`, and how old a TLS session is. Default the system clock. */
  clock?: Clock | undefined;
}

/** One webhook POST. */
export interface SendRequest {
  /** Absolute http(s) URL; userinfo and fragment are not sent. */
  url: string;
  /** Whose share of the origin's connections (the endpoint id); requests without one share their origin's. */
  poolKey?: string;
  /**
   * Bind the connection to these local addresses, or with `bind: false` only keep to their
   * families (the egress relay's fixed IP pool).
   */
  sources?: SourceAddresses;
  /** A client certificate to present (mutual TLS), and CAs to trust for this receiver besides the public roots. */
  tls?: ClientTls;
  headers: Record<string, string>;
  body: string;
  /** How many bytes of the response body to keep, instead of the client's `responseHeadBytes` (a token response). */
  responseHeadBytes?: number;
  /**
   * This send's limit, when shorter than the client's `timeoutMs` (never longer): the wait for a
   * connection and the attempt, each. The egress relay's, from the time its caller's call has left.
   */
  timeoutMs?: number;
}

/**
 * An OAuth 2.0 token request (client credentials) of an endpoint: plain data, built into a POST by
 * {@link tokenSendRequest} — by the dispatcher for a direct send, and by the egress relay itself
 * for a fixed_ip endpoint (the relay sends only requests it builds or checks).
 */
export interface TokenFetch {
  /** The endpoint id: its token requests have connections of their own, apart from its webhooks'. */
  poolKey: string;
  credentials: OAuthClientCredentials;
  /** The endpoint's client certificate, when the token endpoint is on the endpoint's host. */
  tls?: ClientTls;
}

/** The POST of `fetch` (RFC 6749 §4.4.2), its answer read up to TOKEN_RESPONSE_MAX_BYTES. */
export function tokenSendRequest(fetch: TokenFetch): SendRequest {
  const { url, headers, body } = oauthTokenRequest(fetch.credentials);
  return {
    url,
    poolKey: `${fetch.poolKey} token`,
    headers,
    body,
    responseHeadBytes: TOKEN_RESPONSE_MAX_BYTES,
    ...(fetch.tls === undefined ? {} : { tls: fetch.tls }),
  };
}

/** An endpoint's mutual TLS, as a send uses it (the key opened). */
export interface ClientTls {
  /** Names this set-up (endpointTlsId): connections made with one are pooled apart from others. */
  id: string;
  /** PEM: the client certificate, with its chain. */
  cert: string;
  /** PEM: its private key. */
  key: string;
  /** PEM: CAs trusted for this receiver besides the public roots; null: the public roots alone. */
  ca: string | null;
}

/** What happened to one POST. Failures are data, never exceptions. */
export interface SendResult {
  /** True for a 2xx status. */
  ok: boolean;
  /** The response status, or null when none arrived. */
  status: number | null;
  /** The first `responseHeadBytes` of the response body as UTF-8; null when no response. */
  responseHead: string | null;
  /** `<kind>: <detail>` (see EGRESS_ERROR_KINDS), or null when ok. */
  error: string | null;
  /** From the start of the send to the status and body head (or the failure). */
  durationMs: number;
  /** Local address of the socket that carried the request; null when none did. */
  sourceIp: string | null;
  /** The response's `Retry-After` header as sent (its first value); null or absent when there was none or no response. */
  retryAfter?: string | null;
}

const DEFAULT_TIMEOUT_MS = ATTEMPT_TIMEOUT_MS;
const DEFAULT_HEAD_BYTES = RESPONSE_HEAD_BYTES;
/** Sends in flight per endpoint and origin, unless told otherwise (ENDPOINT_SLOTS' default). */
export const EGRESS_CONNECTIONS = 16;
// Past the head, up to this much more body is read and dropped to keep the connection.
const DISCARD_CAP_BYTES = 64 * 1024;
const MAX_LOCATION_CHARS = 500;
/** Longest a connection stays open idle, whatever the receiver's keep-alive hint says. */
export const EGRESS_KEEP_ALIVE_MAX_MS = 4_000;

// undici (≈ 140 ms of CPU to import here) is required by the first HttpEgress made: every
// importer of this package loaded it before, the gateway among them, which sends nothing itself.
const undici = requiredOnFirstUse<typeof import('undici')>(import.meta.url, 'undici');

/** Pools kept at once; each holds only keep-alive sockets, closed by undici when idle. */
const MAX_POOLS = 10_000;

/**
 * The one outbound HTTP client for deliveries: POST, no redirects followed, keep-alive
 * connections bounded per endpoint, an SSRF guard on the address actually connected to
 * (see createGuardedConnector), and two limits: getting a connection (the pool's queue,
 * DNS, connect, TLS) and the attempt itself, counted from when the request is written —
 * so a request queued behind busy connections is not charged for the wait.
 */
export class HttpEgress {
  readonly #pools = new Map<string, Pool>();
  readonly #connect: ReturnType<typeof createGuardedConnector>;
  readonly #connectorOptions: GuardedConnectorOptions;
  readonly #extraCa: string | Buffer | undefined;
  readonly #slots: SendSlots;
  /** Sends begun and not ended (waiting for a slot included): close() waits for them. */
  #sending = 0;
  #drained: (() => void) | undefined;
  /** close()'s work, begun once (a second call waits for the first): from then on a send is refused. */
  #closing: Promise<void> | undefined;
  readonly #timeoutMs: number;
  readonly #headBytes: number;
  readonly #clock: Clock;
  #closed = false;

  /** @throws RangeError for a non-positive timeout or connection count, or a negative head size. */
  constructor(options: HttpEgressOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#headBytes = options.responseHeadBytes ?? DEFAULT_HEAD_BYTES;
    this.#clock = options.clock ?? systemClock;
    const connections = options.connectionsPerOrigin ?? EGRESS_CONNECTIONS;
    if (!(this.#timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    if (!Number.isInteger(this.#headBytes) || this.#headBytes < 0) {
      throw new RangeError('responseHeadBytes must be a non-negative integer');
    }
    if (!Number.isInteger(connections) || connections < 1) {
      throw new RangeError('connectionsPerOrigin must be a positive integer');
    }
    this.#slots = new SendSlots(connections);
    // At construction, not at the first send: a process that sends pays the load as it starts.
    undici();
    this.#extraCa = options.ca;
    this.#connectorOptions = {
      policy: options.policy,
      lookup: options.lookup,
      timeoutMs: this.#timeoutMs,
      secureContext: trustContext(options.ca),
      clock: this.#clock,
    };
    this.#connect = createGuardedConnector(this.#connectorOptions);
  }

  /**
   * POSTs `body` to `url`. Resolves with the outcome for every receiver-side failure
   * (status, redirect, timeout, DNS, blocked address, connection, TLS).
   * @throws TypeError when `url` is not an absolute http(s) URL or a header is one
   * undici refuses to send (caller bugs, not receiver faults). `encoded`: the body as UTF-8
   * bytes already (EgressThread moves a long one so), sent instead of `request.body`.
   */
  async send(request: SendRequest, encoded?: Uint8Array): Promise<SendResult> {
    const target = parseTarget(request.url);
    // A send begun after close() started: refused as data, as every failure is.
    if (this.#closing !== undefined) return failed(classifyError(new Error('the egress client is closed')), 0, null);
    const start = this.#clock.now();
    const body = encoded === undefined ? Buffer.from(request.body, 'utf8') : Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    const probe = probeSocket(body);
    const abort = new AbortController();
    const limitMs = request.timeoutMs === undefined ? this.#timeoutMs : Math.max(1, Math.min(this.#timeoutMs, request.timeoutMs));
    // First the wait for a connection; once the request is written, the attempt's own limit.
    // The error is made when the limit fires, not up front: an Error's stack costs more than
    // the rest of a send's bookkeeping, and nearly every send finishes in time.
    let timer = setTimeout(() => abort.abort(timeoutError(limitMs, 'connection')), limitMs);
    probe.onSent = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(timeoutError(limitMs)), limitMs);
    };
    // The endpoint's share of the origin's connections: a send past it waits, under the same bound.
    const slot = `${request.poolKey ?? ''}\n${poolIdOf(target.origin, request.sources, request.tls)}`;
    this.#sending++;
    try {
      const waiting = this.#slots.take(slot, abort.signal);
      if (waiting !== undefined) {
        try {
          await waiting;
        } catch {
          return failed(classifyError(abort.signal.reason), this.#clock.now() - start, null);
        }
      }
      try {
        return await this.#sendOn(target, request, body, abort, probe, start, limitMs);
      } finally {
        // Given back once undici has put the connection back among the free ones (it does so
        // after the answer's end, a tick later): the send the slot goes to finds it free
        // instead of opening another.
        setImmediate(() => this.#slots.give(slot));
      }
    } finally {
      clearTimeout(timer);
      probe.onSent = undefined;
      if (--this.#sending === 0) this.#drained?.();
    }
  }

  /** The POST, once the endpoint has a slot: its answer's status and head, or the failure. */
  async #sendOn(
    target: { origin: string; path: string },
    request: SendRequest,
    body: Buffer,
    abort: AbortController,
    probe: ReturnType<typeof probeSocket>,
    start: number,
    limitMs: number,
  ): Promise<SendResult> {
    let response: Dispatcher.ResponseData;
    try {
      // The pool taken once the slot is: one evicted or made meanwhile is the one used.
      response = await this.#pool(target.origin, request.sources, request.tls).request({
        path: target.path,
        method: 'POST',
        headers: request.headers,
        body,
        signal: abort.signal,
      });
    } catch (err) {
      if (isCallerError(err)) throw new TypeError(`cannot send: ${(err as Error).message}`);
      // A receiver that refused the client certificate after the handshake: its alert, not the close.
      const cause = tlsAlertOf(probe.socket) ?? err;
      const failure = abort.signal.aborted ? classifyError(abort.signal.reason) : classifyError(cause, limitMs);
      return failed(failure, this.#clock.now() - start, probe.localAddress);
    }
    const head = await readHead(response.body, request.responseHeadBytes ?? this.#headBytes);
    const durationMs = this.#clock.now() - start;
    await discardRest(response.body, DISCARD_CAP_BYTES);
    const status = response.statusCode;
    return {
      ok: status >= 200 && status < 300,
      status,
      responseHead: headText(head),
      error: statusError(status, response.headers.location),
      durationMs,
      sourceIp: probe.localAddress,
      retryAfter: firstHeader(response.headers['retry-after']),
    };
  }

  /** Fetches an OAuth access token for an endpoint (its answer is read as a token response: see core's readTokenResponse). */
  fetchToken(fetch: TokenFetch): Promise<SendResult> {
    return this.send(tokenSendRequest(fetch));
  }

  /** How many connection pools are kept (one per origin sent to lately, and per source or client certificate used there). */
  get poolCount(): number {
    return this.#pools.size;
  }

  /** Connections open now, over every pool. */
  get connections(): number {
    let open = 0;
    for (const pool of this.#pools.values()) open += pool.stats.connected;
    return open;
  }

  /** Closes every connection; waits for sends in flight, those waiting for a slot included. A send begun after is refused. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.#sending > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /**
   * The pool for `origin`, made on first use; the least recently used one goes past MAX_POOLS.
   * Its endpoints share its connections, which it opens as their sends need them: how many
   * each endpoint uses at once is bounded by its slots (send), not here.
   */
  #pool(origin: string, sources?: SourceAddresses, tls?: ClientTls): Pool {
    if (this.#closed) throw new Error('the egress client is closed');
    const id = poolIdOf(origin, sources, tls);
    let pool = this.#pools.get(id);
    if (pool !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.#pools.delete(id);
      this.#pools.set(id, pool);
      return pool;
    }
    pool = new (undici().Pool)(origin, {
      // Our connector offers http/1.1 alone: no first connection held as an HTTP/2 probe that
      // every other request of the origin would wait behind.
      allowH2: false,
      // As many as the sends in flight need (null: no bound of the pool's own).
      connections: null,
      pipelining: 1,
      connect:
        sources === undefined && tls === undefined
          ? this.#connect
          : createGuardedConnector({
              ...this.#connectorOptions,
              sources,
              ...(tls === undefined ? {} : { secureContext: clientContext(this.#extraCa, tls) }),
            }),
      // A receiver's keep-alive hint (nginx 75 s, some minutes) would keep every connection a
      // burst ever opened: each holds about 85 KB of TLS buffers. Idle ones close within 4 s.
      keepAliveMaxTimeout: EGRESS_KEEP_ALIVE_MAX_MS,
      // Backstops: the limits in send() are the ones that normally fire.
      headersTimeout: 2 * this.#timeoutMs,
      bodyTimeout: 2 * this.#timeoutMs,
    });
    this.#pools.set(id, pool);
    if (this.#pools.size > MAX_POOLS) {
      const [oldestId, oldest] = this.#pools.entries().next().value!;
      this.#pools.delete(oldestId);
      // Sends in flight on it finish; its idle connections close.
      void oldest.close().catch(() => {});
    }
    return pool;
  }
}

/**
 * The pool of a send: its origin, and its source addresses and client TLS identity, pooled
 * apart — a socket from one source never carries another's request, nor one made with one
 * client certificate (or trusting other CAs) a request meant for another.
 */
function poolIdOf(origin: string, sources?: SourceAddresses, tls?: ClientTls): string {
  const bound = sources === undefined ? '' : ` from ${sources.v4 ?? ''}/${sources.v6 ?? ''}${sources.bind === false ? ' via NAT' : ''}`;
  return `${origin}${bound}${tls === undefined ? '' : ` tls ${tls.id}`}`;
}

/** Parsed targets of recent URLs: an endpoint's URL is sent to again and again. */
const targets = new Map<string, { origin: string; path: string }>();
const TARGET_CACHE_SIZE = 10_000;

function parseTarget(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (target === undefined) {
    target = parseUrl(url);
    if (targets.size >= TARGET_CACHE_SIZE) targets.delete(targets.keys().next().value!);
    targets.set(url, target);
  }
  return target;
}

function parseUrl(url: string): { origin: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('cannot send: url is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError(`cannot send: url scheme ${parsed.protocol} is not http(s)`);
  }
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

function failed(failure: EgressFailure, durationMs: number, sourceIp: string | null): SendResult {
  return noResponse(failure.error, durationMs, sourceIp);
}

/** A send that got no response: `error` is `<kind>: <detail>` (see EGRESS_ERROR_KINDS). */
export function noResponse(error: string, durationMs: number, sourceIp: string | null = null): SendResult {
  return { ok: false, status: null, responseHead: null, error, durationMs, sourceIp };
}

/** A header's first value, or null when absent. */
function firstHeader(value: string | string[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? null : first;
}

/** The error text of a response status: null for 2xx. Exported for tests. */
export function statusError(status: number, location: string | string[] | undefined): string | null {
  if (status >= 200 && status < 300) return null;
  const to = Array.isArray(location) ? location[0] : location;
  if (status >= 300 && status < 400 && to !== undefined && to !== '') {
    const shown = to.length > MAX_LOCATION_CHARS ? `${to.slice(0, MAX_LOCATION_CHARS)}…` : to;
    return `redirect: ${status} to ${shown} not followed`;
  }
  return `http_status: ${status}`;
}

function isCallerError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 'UND_ERR_INVALID_ARG';
}
