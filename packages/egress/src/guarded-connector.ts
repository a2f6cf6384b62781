import { isIP, connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { createSecureContext, getCACertificates, type SecureContext, connect as tlsConnect } from 'node:tls';
import type { Clock } from '@wirehook/core';
import { systemClock } from '@wirehook/core/without-schemas';
import type { buildConnector } from 'undici';
import { describeAddress } from './address-class.ts';
import type { AddressPolicy } from './address-policy.ts';
import { EgressError } from './egress-error.ts';
import { resolveHost, systemLookup, type LookupFn, type ResolvedAddress } from './resolve-host.ts';

/** What the connector needs. */
export interface GuardedConnectorOptions {
  policy: AddressPolicy;
  /** Default: the system resolver. */
  lookup?: LookupFn | undefined;
  /** Limit for resolving plus connecting (TCP and TLS handshake). */
  timeoutMs: number;
  /** The TLS context every connection uses (see trustContext). */
  secureContext: SecureContext;
  /** How old a TLS session may be (see TlsSessions). Default the system clock. */
  clock?: Clock | undefined;
  /**
   * Source addresses to bind connections to, by family (the egress relay's fixed IP pool):
   * only destination addresses of a family with a source are used. Absent: the system's.
   */
  sources?: SourceAddresses | undefined;
}

/** The addresses a connection leaves from, one per IP family: bound to, unless `bind` is false. */
export interface SourceAddresses {
  v4?: string | undefined;
  v6?: string | undefined;
  /**
   * False: the addresses are not this host's but those a NAT gateway translates its traffic
   * to. The connection is not bound (the system picks the local address); only destination
   * addresses of a family with a source are used, as when bound. Default true.
   */
  bind?: boolean | undefined;
}

/**
 * An undici connector that guards every new connection against SSRF: it resolves the
 * host once, checks the addresses with the AddressPolicy, and hands exactly those
 * addresses to the socket through a `lookup` that never asks DNS again (no window for
 * DNS rebinding). Raw IP hosts must be allowed addresses; host names listed in
 * DELIVERY_ALLOW_HOSTS skip the address check; any other name must resolve only to
 * allowed addresses. Failures reach undici as EgressError (`blocked`, `dns`, `timeout`)
 * or as the socket's own error (`ECONNREFUSED`, TLS codes...).
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const sessions = new TlsSessions(options.clock ?? systemClock);
  return (params, callback) => {
    const deadline = Date.now() + options.timeoutMs;
    checkedAddresses(params.hostname, options).then(
      (checked) => {
        try {
          const { addresses, localAddress } = bindable(checked, params.hostname, options.sources);
          openSocket(
            { ...params, ...(localAddress ? { localAddress } : {}) },
            addresses,
            Math.max(1, deadline - Date.now()),
            options.secureContext,
            sessions,
            callback,
          );
        } catch (err) {
          callback(err as Error, null);
        }
      },
      (err: unknown) => callback(err as Error, null),
    );
  };
}

/**
 * The one TLS context all connections share: Node's default trusted CAs plus `extraCa` (tests,
 * private receivers). Without it tls.connect builds a context per socket, and with an extra CA
 * parses every root certificate again for each new connection.
 */
export function trustContext(extraCa: string | Buffer | undefined): SecureContext {
  return createSecureContext(extraCa === undefined ? {} : { ca: [...getCACertificates('default'), extraCa.toString()] });
}

/**
 * The TLS context of one endpoint's mutual TLS: its client certificate and key, and the
 * receiver's own CAs trusted besides the public roots (and the extra CA every connection has).
 * Made once per pool (a pool keeps its connections' context).
 */
export function clientContext(extraCa: string | Buffer | undefined, tls: { cert: string; key: string; ca: string | null }): SecureContext {
  // Without CAs of its own Node's default store serves (a context listing all ~260 roots costs ~1 MB and ~15 ms).
  if (extraCa === undefined && tls.ca === null) return createSecureContext({ cert: tls.cert, key: tls.key });
  const ca = [...getCACertificates('default'), ...(extraCa === undefined ? [] : [extraCa.toString()]), ...(tls.ca === null ? [] : [tls.ca])];
  return createSecureContext({ ca, cert: tls.cert, key: tls.key });
}

/**
 * With sources: the destination addresses of one family there is a source for (IPv4 first),
 * and that source to bind to (none when `bind` is false). @throws EgressError (`relay`)
 * when no destination family has a source.
 */
function bindable(
  addresses: ResolvedAddress[],
  hostname: string,
  sources: SourceAddresses | undefined,
): { addresses: ResolvedAddress[]; localAddress?: string } {
  if (sources === undefined) return { addresses };
  for (const [family, source] of [
    [4, sources.v4],
    [6, sources.v6],
  ] as const) {
    const usable = addresses.filter((a) => a.family === family);
    if (source !== undefined && usable.length > 0) return sources.bind === false ? { addresses: usable } : { addresses: usable, localAddress: source };
  }
  const families = [...new Set(addresses.map((a) => `IPv${a.family}`))].join(' and ');
  throw new EgressError('relay', `no source address for ${hostname} (${families} only; RELAY_SOURCE_IPS has none of that family)`);
}

/** The addresses a connection to `hostname` may use; rejects with an EgressError. */
async function checkedAddresses(hostname: string, options: GuardedConnectorOptions): Promise<ResolvedAddress[]> {
  const { policy } = options;
  const family = isIP(hostname);
  if (family !== 0) {
    if (!policy.isAllowedAddress(hostname)) throw blocked(`${hostname} is ${describeAddress(hostname)}`);
    return [{ address: hostname, family }];
  }
  const outcome = await resolveHost(hostname, options.lookup ?? systemLookup, options.timeoutMs);
  if (outcome.kind === 'timeout') {
    throw new EgressError('dns', `host "${hostname}" did not resolve within ${options.timeoutMs / 1000} s`);
  }
  if (outcome.kind === 'failed') {
    const code = outcome.code === undefined ? '' : ` (${outcome.code})`;
    throw new EgressError('dns', `host "${hostname}" does not resolve${code}`);
  }
  // A listed name is trusted whatever it resolves to (e.g. localhost in tests).
  if (policy.isAllowedHostName(hostname)) return outcome.addresses;
  for (const { address } of outcome.addresses) {
    if (!policy.isAllowedAddress(address)) {
      throw blocked(`host "${hostname}" resolves to ${address}, ${describeAddress(address)}`);
    }
  }
  return outcome.addresses;
}

function blocked(detail: string): EgressError {
  return new EgressError('blocked', `${detail}; webhooks are sent only to public addresses`);
}

function openSocket(
  params: buildConnector.Options,
  addresses: ResolvedAddress[],
  timeoutMs: number,
  secureContext: SecureContext,
  sessions: TlsSessions,
  callback: buildConnector.Callback,
): void {
  const secure = params.protocol === 'https:';
  const port = Number(params.port) || (secure ? 443 : 80);
  const host = params.hostname;
  const common = {
    host,
    port,
    lookup: pinnedLookup(addresses),
    // Happy eyeballs across the checked addresses only.
    autoSelectFamily: true,
    ...(params.localAddress ? { localAddress: params.localAddress } : {}),
  };
  const servername = params.servername || (isIP(host) === 0 ? host : undefined);
  const sessionKey = `${servername ?? host}:${port}`;
  const offered = secure ? sessions.offer(sessionKey) : undefined;
  let socket: Socket;
  if (secure) {
    const tls = tlsConnect({
      ...common,
      // SNI and certificate identity use the name from the URL, not the address.
      servername,
      ALPNProtocols: ['http/1.1'],
      secureContext,
      session: offered?.session,
    });
    tls.on('session', (session: Buffer) => sessions.keep(sessionKey, session, tls.isSessionReused() ? offered : undefined));
    socket = tls;
  } else {
    socket = netConnect(common);
  }

  let settled = false;
  // Whether TCP connected: a failure after that is the TLS handshake's.
  let reached = false;
  socket.once('connect', () => (reached = true));
  const settle = (err: Error | null) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if (err === null) {
      callback(null, socket);
    } else {
      // The handshake that offered it failed: not offered again (one refused before TLS, or
      // a connection that ends once open, idle or not, keeps it).
      if (offered !== undefined && reached) sessions.drop(sessionKey, offered);
      socket.destroy();
      callback(err, null);
    }
  };
  const timer = setTimeout(() => {
    settle(new EgressError('timeout', `could not connect within ${timeoutMs / 1000} s`));
  }, timeoutMs);
  if (secure) socket.on('error', (err) => noteTlsAlert(socket, err));
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 60_000);
  socket.once(secure ? 'secureConnect' : 'connect', () => settle(null));
  socket.on('error', (err) => settle(params.localAddress ? sourceBindError(err, params.localAddress) : err));
  socket.once('close', () => settle(new Error('connection closed before it was established')));
}

/** Sessions kept per connector: receivers (name and port) sent to lately. */
const MAX_TLS_SESSIONS = 1_000;
/** A larger session is not kept: a receiver picks its ticket's size (up to 64 KB), an mTLS endpoint its CAs'. */
export const MAX_TLS_SESSION_BYTES = 8 * 1024;
/**
 * How long after its certificate was last verified a session is offered. A resumed handshake
 * checks no certificate: a receiver's new or revoked certificate is seen at the next full one.
 */
export const MAX_TLS_SESSION_AGE_MS = 60 * 60 * 1000;

/** A session, and when the full handshake it descends from verified the receiver's certificate. */
interface KeptSession {
  session: Buffer;
  verifiedAt: number;
}

/**
 * The last TLS session of each receiver, by server name and port, so a new connection resumes
 * it instead of a full handshake: no certificate chain to send and verify, no signature to
 * check. An origin's pool opens connections as its sends need them and closes idle ones
 * within seconds, so a receiver sent to in bursts gets new connections all the time. undici's own connector, which ours replaces, keeps such
 * a cache too. One per connector, so per TLS context: a session made with one client
 * certificate never serves a connection meant to present another (an endpoint with a client
 * certificate or fixed source addresses has a connector, and so sessions, of its own). A
 * session the receiver no longer accepts costs nothing: the handshake falls back to a full one.
 */
export class TlsSessions {
  readonly #sessions = new Map<string, KeptSession>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * The session to offer a new connection to `key`: none MAX_TLS_SESSION_AGE_MS or more after
   * its certificate was verified, nor one verified "later" than now (a clock stepped back).
   */
  offer(key: string): KeptSession | undefined {
    const kept = this.#sessions.get(key);
    if (kept === undefined) return undefined;
    this.#sessions.delete(key);
    const age = this.#clock.now() - kept.verifiedAt;
    if (age < 0 || age >= MAX_TLS_SESSION_AGE_MS) return undefined;
    // Most recently used last (see keep).
    this.#sessions.set(key, kept);
    return kept;
  }

  /**
   * Keeps `session`, a ticket the receiver sent on a connection to `key`. `resumedFrom`: the
   * session that connection resumed, if it did — its tickets (OpenSSL's servers send new ones
   * on resumption, Node's do not) are as old as that session's certificate check.
   */
  keep(key: string, session: Buffer, resumedFrom?: KeptSession): void {
    if (session.length > MAX_TLS_SESSION_BYTES) return;
    const verifiedAt = resumedFrom?.verifiedAt ?? this.#clock.now();
    // Most recent last: Map keeps insertion order; the oldest goes first past the bound.
    this.#sessions.delete(key);
    this.#sessions.set(key, { session, verifiedAt });
    if (this.#sessions.size > MAX_TLS_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
  }

  /** Forgets `session` of `key`, unless another connection has kept a newer one since. */
  drop(key: string, session: KeptSession): void {
    if (this.#sessions.get(key) === session) this.#sessions.delete(key);
  }

  get size(): number {
    return this.#sessions.size;
  }
}

/**
 * TLS alerts a receiver sent after the handshake, by socket. In TLS 1.3 a receiver refuses a
 * client certificate (none, or one it does not trust) only after the client's handshake is
 * done: the alert arrives as the request goes out, and undici reports the close that follows
 * ("other side closed"). The send reads the alert from here and reports it as `tls`.
 */
const tlsAlerts = new WeakMap<object, Error>();

function noteTlsAlert(socket: object, err: Error): void {
  const code = (err as NodeJS.ErrnoException).code;
  if (code?.startsWith('ERR_SSL_')) tlsAlerts.set(socket, err);
}

/** The TLS alert `socket` got from its receiver, if any (see noteTlsAlert). */
export function tlsAlertOf(socket: object | null): Error | undefined {
  return socket === null ? undefined : tlsAlerts.get(socket);
}

/**
 * A source address the host does not have (or cannot use) is the relay's misconfiguration,
 * not the receiver's fault: `relay`, so it never counts toward the endpoint's automatic stop.
 */
function sourceBindError(err: Error, localAddress: string): Error {
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (syscall !== 'bind' && code !== 'EADDRNOTAVAIL') return err;
  return new EgressError('relay', `cannot send from ${localAddress}: not an address of this host (${code ?? err.message}; check RELAY_SOURCE_IPS)`);
}

/** A `lookup` for net/tls that answers with the already-checked addresses, never DNS. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Asynchronous like dns.lookup: net emits events from this callback, and the caller
    // attaches its listeners only after tls/net.connect() returns.
    process.nextTick(() => {
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
