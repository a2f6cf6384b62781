// GET /v1/listen: the WebSocket a developer's `wirehook listen` holds open. It registers a
// listener endpoint (`type: "listen"`) for a consumer; the dispatcher's sends to that endpoint
// come over the socket (ListenHub) and the CLI answers with what its local server said.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  isId,
  LISTEN_DRAIN_MS,
  newId,
  nodeHttp,
  NotFoundError,
  toErrorResponse,
  type Consumer,
  type Endpoint,
  type EndpointId,
  type Tenant,
  UnauthorizedError,
  UnavailableError,
} from '@wirehook/core';
import type { ListenerConnection, ListenerRegistry, ListenResponseFrame } from '@wirehook/egress';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ApiDeps } from '../deps.ts';
import { apiKeyAuth, type AuthContext } from '../http/auth.ts';
import { createEndpoint } from '../api/new-endpoint.ts';
import { consumerJson, endpointJson } from '../api/presenters.ts';

/** The consumer `listen` and `trigger` use when given none (created on first use). */
export const LISTEN_CONSUMER = 'wirehook-listen';
/** A listener endpoint whose connection dropped is kept this long for the CLI to reconnect, then removed. */
export const LISTENER_GONE_AFTER_MS = 60_000;
const PING_EVERY_MS = 20_000;
/** How long a stop waits for a listener to answer its close frame before cutting the connection. */
const CLOSE_ANSWER_MS = 1_000;
/** Listener endpoints a page of the janitor's read (covered, by index), and most pages a sweep (one every LISTENER_GONE_AFTER_MS). */
const JANITOR_PAGE = 100;
const JANITOR_PAGES = 100;
/** A frame's size at most: a CLI's answer carries a capped body. */
const MAX_FRAME_BYTES = 256 * 1024;

export interface ListenServerDeps extends Pick<ApiDeps, 'store' | 'clock' | 'logger' | 'secretBox'> {
  /** The connections this process holds (in cluster mode also served on the bus: see the gateway's ListenBridge). */
  hub: ListenerRegistry;
  /** Default LISTENER_GONE_AFTER_MS. */
  goneAfterMs?: number;
  /** The most a stop waits for the webhooks already sent to listeners to be answered (default: core's LISTEN_DRAIN_MS). */
  drainMs?: number;
  /** How often an open connection's API key is checked again (default PING_EVERY_MS). */
  keyCheckMs?: number;
}

/**
 * The close code of a connection whose API key was revoked, expired or lost its scope (policy
 * violation): the CLI says why and exits 1.
 */
export const KEY_REVOKED_CLOSE = 1008;

/** What `listen` was asked for: the query of GET /v1/listen. */
interface ListenRequest {
  forwardTo: string;
  eventTypes: string[] | null;
  consumer: string | null;
}

/**
 * Serves GET /v1/listen (WebSocket, API key of the test environment, scope `endpoints:write`).
 * A clean close (the CLI exits) removes the listener endpoint at once; a dropped connection
 * leaves it for `goneAfterMs` (deliveries meanwhile fail as `connection` and retry), and a
 * `listen` of the same consumer and `--forward-to` within that time takes it over, secret and
 * retries included.
 */
export class ListenServer {
  readonly #deps: ListenServerDeps;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  /** Listener endpoints whose connection dropped, by id: the timer that removes them. */
  readonly #gone = new Map<string, NodeJS.Timeout>();
  readonly #ping: NodeJS.Timeout;
  readonly #janitor: NodeJS.Timeout;
  /** Each connection's socket, while open: a stop's drain closes each once nothing waits on it. */
  readonly #sockets = new Map<ListenerConnection, WebSocket>();
  /** Where the janitor's next sweep starts (null: from the first listener). */
  #janitorAfter: EndpointId | null = null;
  #closed = false;

  constructor(deps: ListenServerDeps) {
    this.#deps = deps;
    const alive = new WeakSet<WebSocket>();
    this.#wss.on('connection', (ws: WebSocket) => {
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
    });
    // A connection whose peer vanished without a close (a laptop's lid shut) is found by its missing pong.
    this.#ping = setInterval(() => {
      for (const ws of this.#wss.clients) {
        if (!alive.has(ws)) ws.terminate();
        alive.delete(ws);
        ws.ping();
      }
    }, PING_EVERY_MS);
    this.#ping.unref();
    // Listeners whose process crashed (no close, no timer left to remove them): found by the
    // janitor, at start and then every goneAfterMs, and removed unless connected again by then.
    this.#janitor = setInterval(() => void this.sweep(), this.#goneAfterMs);
    this.#janitor.unref();
    void this.sweep();
  }

  get #goneAfterMs(): number {
    return this.#deps.goneAfterMs ?? LISTENER_GONE_AFTER_MS;
  }

  /**
   * One janitor step: pages of every tenant's listener endpoints (JANITOR_PAGE each, at most
   * JANITOR_PAGES, by id, from where the last sweep ended); each with no connection here and no removal pending is given
   * goneAfterMs to be connected again (here, or on another gateway), then removed. Never throws.
   */
  async sweep(): Promise<void> {
    const { store, hub, logger } = this.#deps;
    try {
      // Up to JANITOR_PAGES pages a sweep: 10,000 listeners are all looked at each minute.
      for (let pages = 0; pages < JANITOR_PAGES; pages++) {
        const page = await store.endpoints.listeners(this.#janitorAfter, JANITOR_PAGE);
        this.#janitorAfter = page.length < JANITOR_PAGE ? null : (page.at(-1)?.id ?? null);
        for (const { tenant, id } of page) {
          if (!hub.connected(id) && !this.#gone.has(id)) this.#removeLater(tenant, id, this.#goneAfterMs);
        }
        if (this.#janitorAfter === null) break;
      }
    } catch (err) {
      logger.warn({ err }, 'the listener janitor could not read listener endpoints; trying again at its next sweep');
    }
  }

  /** Removes the listener endpoint `after` ms from now, unless a connection of it (here or on another gateway) is there then. */
  #removeLater(tenant: Tenant, id: EndpointId, after: number): void {
    // Stopping: the connections it closes come back to a process that is gone, or are found by the next one's janitor.
    if (this.#closed) return;
    const { store, hub, logger } = this.#deps;
    const timer = setTimeout(() => {
      this.#gone.delete(id);
      if (hub.connected(id)) return;
      void (async () => {
        if (await hub.servedElsewhere?.(id)) return;
        await store.endpoints.delete(tenant, id);
      })().catch((err: unknown) => logger.error({ err, endpointId: id }, 'removing a listener failed'));
    }, after);
    timer.unref();
    this.#gone.set(id, timer);
  }

  /** The HTTP server's `upgrade` listener. */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => {});
    this.#open(req, socket, head).catch((err: unknown) => {
      const { status, body } = toErrorResponse(err);
      // 503 (stopping, or NATS not reached yet) is said to the CLI, which connects again: not an error here.
      if (status >= 500 && status !== 503) this.#deps.logger.error({ err }, 'listen failed');
      refuse(socket, status, JSON.stringify(body));
    });
  };

  /**
   * Stops: no new connection, no new webhook. A connection with no webhook waiting closes at
   * once, as going away (its endpoint waits for a reconnect, elsewhere); one the CLI still owes
   * answers keeps its socket until they come (within `drainMs`), so they are recorded as the CLI
   * said, not failed and sent again. A peer that does not answer the close is cut a moment later.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#ping);
    clearInterval(this.#janitor);
    const goAway = (ws: WebSocket | undefined) => ws?.close(1001, 'Wirehook is stopping');
    await this.#deps.hub.drain(this.#deps.drainMs ?? LISTEN_DRAIN_MS, (connection) => goAway(this.#sockets.get(connection)));
    for (const ws of this.#wss.clients) goAway(ws);
    for (const timer of this.#gone.values()) clearTimeout(timer);
    this.#gone.clear();
    // ws waits 30 s for a close's answer (a laptop's lid shut): not a stop's to wait for.
    const cut = setTimeout(() => {
      for (const ws of this.#wss.clients) ws.terminate();
    }, CLOSE_ANSWER_MS);
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    clearTimeout(cut);
  }

  async #open(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://listen');
    if (url.pathname !== '/v1/listen') throw new NotFoundError(`no WebSocket is served at ${url.pathname}`);
    // Draining (close): a connection now would get no webhook and be closed when the drain ends.
    if (this.#closed) throw new UnavailableError('this Wirehook is stopping; connect again in a moment');
    const auth = await apiKeyAuth(this.#deps, headerValue(req.headers.authorization));
    if (!auth.scopes.includes('endpoints:write')) throw new ForbiddenError('this API key lacks the scope endpoints:write');
    if (auth.tenant.env !== 'test') throw new ForbiddenError('wirehook listen works with test-environment keys only (sk_test_…); this key is live');
    const unavailable = this.#deps.hub.unavailable?.() ?? null;
    if (unavailable !== null) throw new UnavailableError(unavailable);
    const asked = listenRequest(url.searchParams);
    const consumer = await this.#consumer(auth, asked.consumer);
    const { endpoint, secret } = await this.#listener(auth.tenant, consumer, asked);
    const authorization = headerValue(req.headers.authorization);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#serve(ws, auth.tenant, endpoint, secret, consumer);
      this.#keepCheckingKey(ws, authorization);
    });
  }

  /**
   * Checks the connection's API key again every `keyCheckMs`: a key revoked or expired (or that
   * lost `endpoints:write`) ends the connection, as it ends every other call — an open socket had
   * kept receiving the tenant's signed webhooks for as long as it stayed open. A store that does
   * not answer is asked again next time (the connection stays).
   */
  #keepCheckingKey(ws: WebSocket, authorization: string | undefined): void {
    // One check at a time: a store that stalls is not asked again until it has answered.
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      apiKeyAuth(this.#deps, authorization)
        .then(
          (auth) => {
            if (!auth.scopes.includes('endpoints:write')) ws.close(KEY_REVOKED_CLOSE, 'this API key lacks the scope endpoints:write');
          },
          (err: unknown) => {
            if (err instanceof UnauthorizedError) ws.close(KEY_REVOKED_CLOSE, 'this API key was revoked or has expired');
          },
        )
        .finally(() => (checking = false));
    }, this.#deps.keyCheckMs ?? PING_EVERY_MS);
    timer.unref();
    ws.on('close', () => clearInterval(timer));
  }

  #serve(ws: WebSocket, tenant: Tenant, endpoint: Endpoint, secret: string, consumer: Consumer): void {
    const { hub } = this.#deps;
    const connection: ListenerConnection = { send: (frame) => ws.send(frame) };
    this.#sockets.set(connection, ws);
    hub.attach(endpoint.id, connection);
    this.#wss.emit('connection', ws);
    ws.send(JSON.stringify({ type: 'ready', endpoint: endpointJson(endpoint), consumer: consumerJson(consumer), secret }));
    ws.on('message', (data) => {
      const frame = parseFrame(data.toString());
      if (frame !== null) hub.answer(connection, frame);
    });
    ws.on('close', (code) => {
      this.#sockets.delete(connection);
      hub.detach(endpoint.id, connection);
      if (hub.connected(endpoint.id)) return; // taken over by a newer connection
      // 1000: the CLI said goodbye (it exits). Else it may come back: keep the endpoint a while.
      clearTimeout(this.#gone.get(endpoint.id));
      this.#removeLater(tenant, endpoint.id, code === 1000 ? 0 : this.#goneAfterMs);
    });
  }

  /** The consumer asked for (id or external_id, in the caller's tenant), or `wirehook-listen`, made when missing. */
  async #consumer(auth: AuthContext, asked: string | null): Promise<Consumer> {
    const { store, clock } = this.#deps;
    if (asked !== null) {
      const found = isId('consumer', asked) ? await store.consumers.get(auth.tenant, asked) : await store.consumers.getByExternalId(auth.tenant, asked);
      if (found === null) throw new NotFoundError(`consumer ${asked} not found`);
      return found;
    }
    const existing = await store.consumers.getByExternalId(auth.tenant, LISTEN_CONSUMER);
    if (existing !== null) return existing;
    try {
      return await store.consumers.create(auth.tenant, {
        id: newId('consumer', clock),
        externalId: LISTEN_CONSUMER,
        name: 'wirehook listen',
        createdAt: clock.now(),
      });
    } catch (err) {
      const made = err instanceof ConflictError ? await store.consumers.getByExternalId(auth.tenant, LISTEN_CONSUMER) : null;
      if (made === null) throw err;
      return made; // another listen made it first
    }
  }

  /** The consumer's listener endpoint for `forwardTo` left by a dropped connection (taken over), or a new one. */
  async #listener(tenant: Tenant, consumer: Consumer, asked: ListenRequest): Promise<{ endpoint: Endpoint; secret: string }> {
    const { store, clock, secretBox, hub } = this.#deps;
    const now = clock.now();
    const candidates = (await store.endpoints.list(tenant, { consumerId: consumer.id })).filter(
      (e) => e.type === 'listen' && e.url === asked.forwardTo && !hub.connected(e.id),
    );
    // One held by another gateway is live, not left: a second `listen` gets its own endpoint (never two CLIs on one subject).
    let left: Endpoint | undefined;
    for (const candidate of candidates) {
      if (!(await hub.servedElsewhere?.(candidate.id))) {
        left = candidate;
        break;
      }
    }
    const [current] = left === undefined ? [] : await store.endpoints.secrets(tenant, left.id, now);
    if (left !== undefined && current !== undefined) {
      clearTimeout(this.#gone.get(left.id));
      this.#gone.delete(left.id);
      const same = JSON.stringify(left.eventTypes) === JSON.stringify(asked.eventTypes);
      const endpoint = same ? left : ((await store.endpoints.update(tenant, left.id, { eventTypes: asked.eventTypes })) ?? left);
      return { endpoint, secret: secretBox.open(current.sealed, left.id) };
    }
    const { endpoint, secret } = await createEndpoint(this.#deps, tenant, {
      consumerId: consumer.id,
      url: asked.forwardTo,
      description: 'wirehook listen',
      eventTypes: asked.eventTypes,
      type: 'listen',
    });
    return { endpoint, secret };
  }
}

/** GET /v1/listen?forward_to=…&events=a,b&consumer=… @throws InvalidError */
function listenRequest(query: URLSearchParams): ListenRequest {
  const forwardTo = query.get('forward_to') ?? '';
  let parsed: URL | null = null;
  try {
    parsed = new URL(forwardTo);
  } catch {}
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || forwardTo.length > 2_000) {
    throw new InvalidError('forward_to must be an http or https URL (where the CLI forwards webhooks, e.g. http://localhost:3000/webhook)');
  }
  const events = (query.get('events') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return { forwardTo, eventTypes: events.length === 0 ? null : [...new Set(events)], consumer: query.get('consumer') || null };
}

function parseFrame(text: string): ListenResponseFrame | null {
  try {
    const frame = JSON.parse(text) as Partial<ListenResponseFrame> | null;
    return frame !== null && frame.type === 'response' && typeof frame.id === 'string' ? (frame as ListenResponseFrame) : null;
  } catch {
    return null;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Answers an upgrade that is not taken with a plain HTTP error (`{ error, message }`), and closes. */
function refuse(socket: Duplex, status: number, body: string): void {
  if (!socket.writable) return void socket.destroy();
  const head = [
    `HTTP/1.1 ${status} ${nodeHttp().STATUS_CODES[status] ?? ''}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
