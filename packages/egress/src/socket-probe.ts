import { subscribe } from 'node:diagnostics_channel';

/** Filled in when a request's headers go out on a socket. */
export interface SocketProbe {
  /** The local address of the socket that carried the request; null until it is sent. */
  localAddress: string | null;
  /** The socket that carried it; null until it is sent. */
  socket: object | null;
  /** Called once, when the request's headers are written to its socket. */
  onSent?: () => void;
}

// Keyed by the request body Buffer: undici keeps a non-empty Buffer body as the same
// object on its Request, and its documented `undici:client:sendHeaders` message carries
// that Request with the socket it is written to. This gives the exact socket of each
// request, even with several keep-alive sockets per origin; weak keys leak nothing.
const probes = new WeakMap<object, SocketProbe>();
let subscribed = false;

/**
 * Starts watching for the socket that will carry a request whose body is `body` (a
 * non-empty Buffer made for this one request). The returned probe's `localAddress` is
 * set when the request's headers are written; it stays null for an empty body, or when
 * the request never reached a socket (DNS, refused, TLS, blocked).
 */
export function probeSocket(body: Buffer): SocketProbe {
  if (!subscribed) {
    subscribe('undici:client:sendHeaders', onSendHeaders);
    subscribed = true;
  }
  const probe: SocketProbe = { localAddress: null, socket: null };
  probes.set(body, probe);
  return probe;
}

function onSendHeaders(message: unknown): void {
  const { request, socket } = message as { request?: { body?: unknown }; socket?: { localAddress?: string } };
  const body = request?.body;
  if (typeof body !== 'object' || body === null) return;
  const probe = probes.get(body);
  if (probe === undefined) return;
  probe.localAddress = socket?.localAddress ?? null;
  probe.socket = socket ?? null;
  const sent = probe.onSent;
  probe.onSent = undefined;
  sent?.();
}
