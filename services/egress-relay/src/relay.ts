import {
  HttpEgress,
  noResponse,
  tokenSendRequest,
  type AddressPolicy,
  type LookupFn,
  type SendRequest,
  type SendResult,
  type TokenFetch,
} from '@wirehook/egress';
import type { RelayDeliverRequest as RelayRequest } from '@wirehook/rpc';
import { Counter, type Registry } from 'prom-client';
import { relayRequestViolation, relayTokenViolation } from './relay-request.ts';
import { natSourceIp, natSources, poolSize, sourcesFor, type RelayEgressMode, type RelayPool } from './relay-sources.ts';

export interface EgressRelayOptions {
  pool: RelayPool;
  /** RELAY_EGRESS_MODE: bind to the pool's addresses (default), or leave through a NAT gateway that has them. */
  mode?: RelayEgressMode;
  /** The relay checks every address it connects to itself: the dispatcher's checks are not trusted across the boundary. */
  policy: AddressPolicy;
  lookup?: LookupFn;
  timeoutMs: number;
  connectionsPerOrigin: number;
  ca?: string;
  registry?: Registry;
}

/** What the relay is asked to send: the signed request, and whose connections to use. */
export type { RelayDeliverRequest as RelayRequest } from '@wirehook/rpc';

/**
 * Sends `fixed_ip` endpoints' webhooks from the fixed IP pool, with the same SSRF guard, no
 * redirects and the same time limits as direct sends (HttpEgress). In `bind` mode each
 * connection is bound to the endpoint's source address (sourcesFor), and `sourceIp` is it.
 * In `nat` mode nothing is bound: the connection uses only a family the pool has, leaves
 * with the pod's address, and the NAT gateway in front translates it to one of the pool's;
 * `sourceIp` is the pool's address of that family — or, with several of that family, all of
 * them joined by "," (e.g. "198.51.100.20,198.51.100.21"): the relay cannot see which one
 * the NAT used. It sends only what the dispatcher sends (relayRequestViolation). Failures are data; a relay without a pool answers every send with a
 * `relay:` error — never a silent send from another address.
 */
export class EgressRelay {
  readonly #pool: RelayPool;
  readonly #mode: RelayEgressMode;
  readonly #egress: HttpEgress;
  readonly #sends: Counter<'source_ip' | 'outcome'>;

  constructor(options: EgressRelayOptions) {
    this.#pool = options.pool;
    this.#mode = options.mode ?? 'bind';
    this.#egress = new HttpEgress({
      policy: options.policy,
      lookup: options.lookup,
      timeoutMs: options.timeoutMs,
      connectionsPerOrigin: options.connectionsPerOrigin,
      ca: options.ca,
    });
    this.#sends = new Counter({
      name: 'wirehook_relay_sends_total',
      help: 'Sends through the egress relay by source address and outcome (success, or the error kind: relay errors are ours)',
      labelNames: ['source_ip', 'outcome'],
      registers: options.registry ? [options.registry] : [],
    });
  }

  /** Whether the pool has an address (the relay's readiness). */
  get hasSources(): boolean {
    return poolSize(this.#pool) > 0;
  }

  /** `timeoutMs`: the caller's DELIVERY_TIMEOUT_MS, kept to when shorter than the relay's own (so it answers within the caller's call). */
  async send(request: RelayRequest, timeoutMs?: number): Promise<SendResult> {
    const refused = relayRequestViolation(request);
    return this.#sendFromPool(timeoutMs === undefined ? request : { ...request, timeoutMs }, refused);
  }

  /**
   * An OAuth token request of a fixed_ip endpoint, from the same pool address as its webhooks
   * (a token endpoint may allowlist them too). The request is built here from the credentials,
   * checked by the API's rules (relayTokenViolation): the relay sends no body it did not make.
   */
  async fetchToken(fetch: TokenFetch, timeoutMs?: number): Promise<SendResult> {
    const refused = relayTokenViolation(fetch.credentials);
    const request = refused === null ? { ...tokenSendRequest(fetch), poolKey: fetch.poolKey } : null;
    return this.#sendFromPool(request !== null && timeoutMs !== undefined ? { ...request, timeoutMs } : request, refused);
  }

  /** What a call the relay does not send is answered with (`error`, a `relay:` failure), counted as one. */
  notSent(error: string): SendResult {
    this.#sends.inc({ source_ip: 'none', outcome: 'relay' });
    return noResponse(error, 0);
  }

  async #sendFromPool(request: (SendRequest & { poolKey: string }) | null, refused: string | null): Promise<SendResult> {
    if (refused !== null || request === null) {
      this.#sends.inc({ source_ip: 'none', outcome: 'relay' });
      return noResponse(refused ?? 'relay: refused', 0);
    }
    if (!this.hasSources) {
      this.#sends.inc({ source_ip: 'none', outcome: 'relay' });
      return noResponse('relay: no source address configured (RELAY_SOURCE_IPS is empty)', 0);
    }
    const result = await (this.#mode === 'nat'
      ? this.#sendThroughNat(request)
      : this.#egress.send({ ...request, sources: sourcesFor(this.#pool, request.poolKey) }));
    this.#sends.inc({ source_ip: result.sourceIp ?? 'none', outcome: result.ok ? 'success' : (result.error?.split(':')[0] ?? 'unknown') });
    return result;
  }

  async #sendThroughNat(request: SendRequest): Promise<SendResult> {
    const result = await this.#egress.send({ ...request, sources: natSources(this.#pool) });
    return result.sourceIp === null ? result : { ...result, sourceIp: natSourceIp(this.#pool, result.sourceIp) };
  }

  close(): Promise<void> {
    return this.#egress.close();
  }
}
