// OAuth access tokens of endpoints with client credentials (`auth`): fetched once per token
// lifetime for every dispatcher, not once per delivery. A receiver's token endpoint is often
// rate-limited, and 1,000 deliveries in flight must not become 1,000 token requests.
import { createHash, randomUUID } from 'node:crypto';
import { readTokenResponse, type AccessToken, type Clock, type EndpointAuth, type SecretBox } from '@wirehook/core';
import type { SendResult } from '@wirehook/egress';
import type { Kv } from '@wirehook/kv';
import type { Logger } from '@wirehook/platform';

/** A token, or why none could be had (`auth: …`, an attempt error), with the time spent. */
export type TokenOutcome = { token: string; durationMs: number } | { error: string; durationMs: number };

export interface OAuthTokensDeps {
  /** Shared between dispatchers (Redis in cluster mode; the process's MemoryKv embedded). */
  kv: Kv;
  /** Tokens are credentials: sealed in the shared store, bound to their endpoint. */
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  /** How long a token request may take (the attempt's limit): a fetch lock outlives it. */
  fetchTimeoutMs: number;
  /** Monotonic milliseconds for holds and waits (a clock stepping back must not lengthen them); default performance.now. */
  monotonic?: () => number;
}

/** After a failed token request, this process asks again no sooner (each delivery meanwhile fails as `auth`). */
export const FAILURE_HOLD_MS = 5_000;
/**
 * A token fetched less than this long ago is not replaced on a 401: a receiver that refuses every
 * token (another audience, a clock skew) would otherwise cost a token request per delivery.
 */
export const MIN_TOKEN_AGE_FOR_REFRESH_MS = 30_000;
/** How often a dispatcher waiting on another's fetch looks for its token. */
const WAIT_POLL_MS = 50;

/**
 * Each endpoint's current access token. Where a token is looked for, in order: this process's
 * memory; the shared store (`oauth:token:<endpoint>:<credentials>`, sealed); else one fetch for
 * all dispatchers — the first to take `oauth:fetch:…` (SET NX with a lease as long as a fetch
 * may take) fetches, the others wait for its token. A token is used until 60 s before it expires
 * (readTokenResponse). Changed credentials are another key: a token is never used with other
 * credentials than those that fetched it.
 *
 * `refresh` is the 401 path: the receiver refused a token, so it is dropped (here and, only
 * while it is still the shared one, there) and one new one is fetched — by one dispatcher,
 * however many deliveries got the 401 at once. A shared store that cannot be reached does not
 * stop deliveries: each process then fetches for itself.
 */
export class OAuthTokens {
  readonly #deps: OAuthTokensDeps;
  /** Endpoint id → the token this process uses, with the credentials' key it was fetched with. */
  readonly #local = new Map<string, { key: string; token: SharedToken }>();
  /** Endpoint id → a recent failure, held for FAILURE_HOLD_MS (monotonic time: a clock stepping back holds no longer). */
  readonly #failed = new Map<string, { key: string; error: string; until: number }>();
  /** One look-up per endpoint and credentials at a time in this process. */
  readonly #pending = new Map<string, Promise<TokenOutcome>>();
  readonly #owner = randomUUID();
  #kvDown = false;
  #stopped = false;

  constructor(deps: OAuthTokensDeps) {
    this.#deps = deps;
  }

  /**
   * The dispatcher is stopping (its sends waiting for a token have given way): a look-up still
   * waiting for another dispatcher's token ends at its next poll instead of polling the shared
   * store, and fetching, until its lock's end; none asks for a token any more. A fetch already
   * asked finishes, its token kept and its lock let go (settled()).
   */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Once every look-up under way has ended: after stop(), at most a token request already asked
   * (a whole send, or a relay call) — awaited before the shared store and the egress close, so its
   * token is kept for the other dispatchers and its lock let go rather than left to its lease.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending.values()]);
  }

  #now(): number {
    return (this.#deps.monotonic ?? performance.now.bind(performance))();
  }

  /** The token to send to endpoint `endpointId`; `fetch` asks its token endpoint (direct or through the relay). */
  token(endpointId: string, auth: EndpointAuth, fetch: () => Promise<SendResult>, secrets: readonly string[] = []): Promise<TokenOutcome> {
    return this.#get(endpointId, auth, fetch, null, secrets);
  }

  /**
   * The receiver refused `refused` (401): another token, fetched once for every dispatcher, unless
   * one already replaced it — or `refused` itself when it is younger than 30 s (the receiver refuses
   * fresh tokens: asking for more would not help), which the caller takes as "no new token".
   */
  refresh(endpointId: string, auth: EndpointAuth, fetch: () => Promise<SendResult>, refused: string, secrets: readonly string[] = []): Promise<TokenOutcome> {
    return this.#get(endpointId, auth, fetch, refused, secrets);
  }

  #get(endpointId: string, auth: EndpointAuth, fetch: () => Promise<SendResult>, refused: string | null, secrets: readonly string[]): Promise<TokenOutcome> {
    const key = credentialsKey(auth);
    const now = this.#deps.clock.now();
    const local = this.#local.get(endpointId);
    if (local !== undefined && local.key === key && local.token.usableUntil > now) {
      if (local.token.token !== refused) return Promise.resolve({ token: local.token.token, durationMs: 0 });
      if (young(local.token, now)) return Promise.resolve({ token: refused, durationMs: 0 });
    }
    const failed = this.#failed.get(endpointId);
    if (failed !== undefined && failed.key === key && failed.until > this.#now()) return Promise.resolve({ error: failed.error, durationMs: 0 });
    const flight = `${endpointId} ${key} ${refused ?? ''}`;
    let pending = this.#pending.get(flight);
    if (pending === undefined) {
      pending = this.#lookUp(endpointId, key, fetch, refused, secrets).finally(() => this.#pending.delete(flight));
      this.#pending.set(flight, pending);
    }
    return pending;
  }

  async #lookUp(endpointId: string, key: string, fetch: () => Promise<SendResult>, refused: string | null, secrets: readonly string[]): Promise<TokenOutcome> {
    const started = performance.now();
    const tokenKey = `oauth:token:${endpointId}:${key}`;
    const lockKey = `oauth:fetch:${endpointId}:${key}`;
    // Longer than a fetch can take, directly (connect and answer, each the attempt's limit) or
    // through the relay (whose call deadline adds its own margin): a lock never ends mid-fetch.
    const lockMs = this.#deps.fetchTimeoutMs * 2 + 10_000;
    // However the locks turn over, a delivery waits no longer than one lock for its token.
    const deadline = started + lockMs;
    for (;;) {
      if (this.#stopped) return stoppedOutcome(started);
      const shared = await this.#shared(endpointId, tokenKey);
      if (shared !== null && shared.token.token !== refused) return this.#keep(endpointId, key, shared.token, started);
      if (shared !== null && young(shared.token, this.#deps.clock.now())) return this.#keep(endpointId, key, shared.token, started);
      // The refused token is still the shared one: drop it, unless another dispatcher replaced it meanwhile.
      if (shared !== null) await this.#kv((kv) => kv.deleteIfEquals(tokenKey, shared.stored), false);
      const taken = performance.now() > deadline || (await this.#kv(async (kv) => (await kv.setIfAbsent(lockKey, this.#owner, lockMs)) === null, true));
      if (taken) return this.#fetch(endpointId, key, fetch, tokenKey, lockKey, refused, started, secrets);
      // Another dispatcher is fetching: wait for its token, or for its lease to end.
      if (!(await this.#waitForOther(endpointId, tokenKey, lockKey, refused, deadline))) continue;
      const fetched = await this.#shared(endpointId, tokenKey);
      if (fetched !== null && fetched.token.token !== refused) return this.#keep(endpointId, key, fetched.token, started);
    }
  }

  async #fetch(
    endpointId: string,
    key: string,
    fetch: () => Promise<SendResult>,
    tokenKey: string,
    lockKey: string,
    refused: string | null,
    started: number,
    secrets: readonly string[],
  ): Promise<TokenOutcome> {
    const { clock, secretBox } = this.#deps;
    try {
      // Under the lock, the shared token first: another dispatcher may have fetched, stored and
      // unlocked between this one's read and its lock, and a second fetch would be one too many.
      const stored = await this.#shared(endpointId, tokenKey);
      if (stored !== null && stored.token.token !== refused) return this.#keep(endpointId, key, stored.token, started);
      // Stopped while it took the lock: no new token request (the lock is let go below).
      if (this.#stopped) return stoppedOutcome(started);
      const result = await fetch();
      const now = clock.now();
      const read =
        result.status === null
          ? { error: `auth: token endpoint unreachable (${result.error ?? 'no response'})` }
          : readTokenResponse({ status: result.status, body: result.responseHead ?? '' }, now, secrets);
      if ('error' in read) {
        this.#failed.set(endpointId, { key, error: read.error, until: this.#now() + FAILURE_HOLD_MS });
        return { error: read.error, durationMs: Math.round(performance.now() - started) };
      }
      const token: SharedToken = { ...read, fetchedAt: now };
      const ttl = Math.floor(read.usableUntil - now);
      if (ttl > 0) await this.#kv((kv) => kv.set(tokenKey, secretBox.seal(JSON.stringify(token), endpointId), ttl), undefined);
      return this.#keep(endpointId, key, token, started);
    } finally {
      await this.#kv((kv) => kv.deleteIfEquals(lockKey, this.#owner), false);
    }
  }

  /** Waits until the shared token is there (true) or the fetch lock is gone without one (false: try again). */
  async #waitForOther(endpointId: string, tokenKey: string, lockKey: string, refused: string | null, until: number): Promise<boolean> {
    // Real time, not the clock's: the lease it waits on ends in the shared store's time.
    while (performance.now() < until && !this.#stopped) {
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
      const shared = await this.#shared(endpointId, tokenKey);
      if (shared !== null && shared.token.token !== refused) return true;
      if ((await this.#kv((kv) => kv.get(lockKey), null)) === null) return false;
    }
    return false;
  }

  /** The shared token of `tokenKey` (and the stored text, for a compare-and-delete), or null. */
  async #shared(endpointId: string, tokenKey: string): Promise<{ token: SharedToken; stored: string } | null> {
    const stored = await this.#kv((kv) => kv.get(tokenKey), null);
    if (stored === null) return null;
    try {
      const token = JSON.parse(this.#deps.secretBox.open(stored, endpointId)) as SharedToken;
      return token.usableUntil > this.#deps.clock.now() ? { token, stored } : null;
    } catch {
      return null; // sealed with a key this process lacks: fetch one of its own
    }
  }

  #keep(endpointId: string, key: string, token: SharedToken, started: number): TokenOutcome {
    this.#failed.delete(endpointId);
    this.#local.delete(endpointId);
    this.#local.set(endpointId, { key, token });
    // Endpoints' tokens age out by capacity, oldest first, as the other per-endpoint caches.
    if (this.#local.size > LOCAL_CAPACITY) this.#local.delete(this.#local.keys().next().value!);
    if (this.#failed.size > LOCAL_CAPACITY) this.#failed.delete(this.#failed.keys().next().value!);
    return { token: token.token, durationMs: Math.round(performance.now() - started) };
  }

  /** A shared-store call; when the store cannot be reached, `fallback` (each process then fetches for itself). */
  async #kv<T>(call: (kv: Kv) => Promise<T>, fallback: T): Promise<T> {
    try {
      const value = await call(this.#deps.kv);
      this.#kvDown = false;
      return value;
    } catch (err) {
      if (!this.#kvDown) this.#deps.logger.warn({ err }, 'OAuth tokens: the shared store is unreachable; each dispatcher fetches its own tokens');
      this.#kvDown = true;
      return fallback;
    }
  }
}

/** A token as kept here and in the shared store: when it was fetched too (the clock's time). */
type SharedToken = AccessToken & { fetchedAt?: number };

/** Fetched less than MIN_TOKEN_AGE_FOR_REFRESH_MS ago (a time ahead of the clock, after it stepped back, counts as young). */
function young(token: SharedToken, now: number): boolean {
  return token.fetchedAt !== undefined && now - token.fetchedAt < MIN_TOKEN_AGE_FOR_REFRESH_MS;
}

/** Tokens kept in this process's memory, one per endpoint. */
const LOCAL_CAPACITY = 10_000;

/** Names the credentials a token was fetched with: the token URL, client, sealed secret, scope, audience and method. */
export function credentialsKey(auth: EndpointAuth): string {
  return createHash('sha256')
    .update([auth.tokenUrl, auth.clientId, auth.sealedSecret, auth.scope ?? '', auth.audience ?? '', auth.tokenAuthMethod].join('\0'))
    .digest('base64url')
    .slice(0, 16);
}

/** A look-up ended by the dispatcher's stop (its send has given way; the outcome is no attempt's). */
function stoppedOutcome(started: number): TokenOutcome {
  return { error: 'auth: the dispatcher stopped before its token came', durationMs: Math.round(performance.now() - started) };
}
