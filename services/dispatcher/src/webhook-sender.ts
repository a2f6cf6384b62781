// Sending: one claimed delivery's signed POST, directly or through the relay — the one step
// that talks to a customer's endpoint.
import {
  CANCELLED_ATTEMPT_ERROR,
  runTransformation,
  urlBoundsOf,
  TransformerUnavailableError,
  sameHost,
  UnsealError,
  type CheckedTransformation,
  type Clock,
  type OAuthClientCredentials,
  type SecretBox,
  type Transformer,
} from '@wirehook/core';
import { EgressUnavailableError, noResponse, type TokenFetch } from '@wirehook/egress';
import type { Kv } from '@wirehook/kv';
import { OutageLog, type Logger } from '@wirehook/platform';
import type { DeliveryJob, Store } from '@wirehook/store';
import type { DeliveryLeases } from './delivery-leases.ts';
import type { DispatcherMetrics } from './metrics.ts';
import type { SendResult } from './outcome.ts';
import { OAuthTokens } from './oauth-tokens.ts';
import { traceSend } from './send-span.ts';
import { TransformationCodes } from './transformation-codes.ts';
import { urlRuleViolation } from './send-time-rules.ts';
import { SigningKeys } from './signing-keys.ts';
import { buildWebhookRequest, customHeaders, type WebhookRequest } from './webhook-request.ts';
import { remember } from './recent-map.ts';

/** The outbound HTTP client, as the dispatcher uses it. */
export interface Sender {
  send(request: WebhookRequest): Promise<SendResult>;
}

/** A sender that also fetches endpoints' OAuth tokens, from where it sends their webhooks. */
export interface TokenSender extends Sender {
  fetchToken(fetch: TokenFetch): Promise<SendResult>;
}

export interface WebhookSenderDeps {
  /** Direct sends. */
  sender: TokenSender;
  /** Sends of `fixed_ip` endpoints: the egress relay (in-process, or over gRPC). */
  relay: TokenSender;
  /** Sends of listener endpoints: over the `wirehook listen` connection; absent, they fail as `connection`. */
  listen?: Sender;
  secretBox: SecretBox;
  /** Gives a put-off delivery back to the store. */
  leases: DeliveryLeases;
  clock: Clock;
  logger: Logger;
  metrics: DispatcherMetrics;
  /** Where OAuth tokens are shared between dispatchers (Redis in cluster mode). */
  kv: Kv;
  /** The attempt's limit (DELIVERY_TIMEOUT_MS): a token request has the same. */
  timeoutMs: number;
  /** Runs endpoints' transformations (@wirehook/transform's TransformRunner). */
  transforms: Transformer;
  /** Where a transformation's code is read once per change (a job carries only its hash). */
  store: Pick<Store, 'endpoints'>;
}

/** A dispatcher wired without listener connections (no `listen` sender): a listener is never connected. */
const NO_LISTENERS: Sender = { send: async () => noResponse('connection: no `wirehook listen` is connected here', 0) };

/** A send whose transformation could not be run (for a reason of ours) is tried again this much later. */
const TRANSFORMATION_RETRY_MS = 1_000;

/** A send the egress thread could not take (it ended, or is starting again) is tried again this much later. */
const EGRESS_RETRY_MS = 1_000;
/**
 * A delivery whose sends were held by this many threads as they ended is recorded as an
 * `internal` attempt, not put off again: were it the cause (an answer that ends the thread),
 * its retries and the policy's end bound it, where put-offs would end a thread every second
 * for ever, and every send in flight with it.
 */
export const EGRESS_LOSSES_BEFORE_ATTEMPT = 3;
/** Deliveries whose losses are counted at once; past it the oldest count is dropped (a bound, not a loss of sends). */
const EGRESS_LOSSES_TRACKED = 10_000;

/** A send whose secret does not open here waits this long before it is tried again. */
const UNSEAL_RETRY_MS = 60_000;

/**
 * The POST of one claimed delivery: the URL rules checked again, the request signed, sent
 * directly or through the relay, in a CLIENT span. Every way it can go is a result to record
 * (a forbidden URL is a `blocked` attempt, a bug here an `internal` one), except a signing
 * secret this process cannot open, or a sandbox or egress thread that could not take the send:
 * those faults are ours, so the send is put off instead (an egress thread lost with the same
 * send EGRESS_LOSSES_BEFORE_ATTEMPT times is an attempt after all).
 */
export class WebhookSender {
  readonly #deps: WebhookSenderDeps;
  readonly #signingKeys: SigningKeys;
  /** Secrets this process's key ring does not open (a re-seal with a key it lacks). */
  readonly #unsealOutage: OutageLog;
  readonly #egressOutage: OutageLog;
  /** Per delivery, how many threads ended holding its send (EGRESS_LOSSES_BEFORE_ATTEMPT). */
  readonly #egressLosses = new Map<string, number>();
  readonly #tokens: OAuthTokens;
  readonly #codes: TransformationCodes;
  /**
   * The sends waiting for a token step, each given way by stop(). One entry a step, removed when it
   * ends: a promise pending until the stop, raced by every step, would keep each step's handler
   * (and its result) for the process's life.
   */
  readonly #waitingForToken = new Set<() => void>();
  #stopped = false;

  constructor(deps: WebhookSenderDeps) {
    this.#deps = deps;
    this.#signingKeys = new SigningKeys(deps.secretBox);
    this.#codes = new TransformationCodes(deps.store);
    this.#tokens = new OAuthTokens({ kv: deps.kv, secretBox: deps.secretBox, clock: deps.clock, logger: deps.logger, fetchTimeoutMs: deps.timeoutMs });
    this.#unsealOutage = new OutageLog({
      logger: deps.logger,
      clock: deps.clock,
      what: 'signing secrets do not open with this process’s WIREHOOK_SECRET_KEY',
      deferred: 'sends put off (not attempts: the endpoint is not at fault)',
      consequence: 'sends are put off until a process with the right key ring takes them (see /readyz)',
    });
    this.#egressOutage = new OutageLog({
      logger: deps.logger,
      clock: deps.clock,
      what: 'the egress thread ended or stopped answering',
      deferred: 'sends put off (not attempts: the endpoints are not at fault)',
      consequence: 'sends are put off a second at a time while it starts again',
    });
  }

  /**
   * The dispatcher is stopping. A send to an endpoint with OAuth whose webhook has not gone out —
   * waiting for its token (another dispatcher's request, or its own to a slow token endpoint), or
   * coming to it from now on, its token at hand or not — is put off (no attempt, due again now, for
   * another dispatcher) instead of holding the stop past its deadline, where it would be cut
   * unrecorded. After a 401 no new token is fetched: the 401 is the attempt's answer. Webhooks on
   * their way are let finish, and token requests already asked (settled()).
   */
  stop(): void {
    this.#stopped = true;
    this.#tokens.stop();
    for (const giveWay of this.#waitingForToken) giveWay();
    this.#waitingForToken.clear();
  }

  /** Sends waiting for a token step now (none once each has ended). */
  get waitingForToken(): number {
    return this.#waitingForToken.size;
  }

  /** Once the token requests already asked when it stopped have ended (their tokens kept, their locks let go). */
  settled(): Promise<void> {
    return this.#tokens.settled();
  }

  /**
   * Sends `job`, signed at `at`. @returns what the POST did, or null when it was put off (no
   * attempt to record: the delivery is back in the store, due a minute later when its secret
   * does not open here, a second later when the sandbox or the egress thread could not take it).
   */
  async send(job: DeliveryJob, at: number): Promise<SendResult | null> {
    try {
      // A listener's URL is where the developer's CLI forwards to (their own machine): never sent to from here.
      const listener = job.endpoint.type === 'listen';
      const violation = listener ? null : (urlRuleViolation(job.endpoint.url) ?? expiredCertificate(job, at));
      if (violation !== null) return noResponse(violation, 0);
      let request: WebhookRequest;
      let credentials: OAuthClientCredentials | null;
      let transformed: CheckedTransformation | undefined;
      try {
        if (job.endpoint.transformation?.enabled) {
          const ran = await this.#transform(job, await this.#codes.codeOf(job), at);
          if ('result' in ran) return ran.result; // cancelled, or failed: nothing is sent
          transformed = ran.request;
        }
        request = buildWebhookRequest(job, this.#signingKeys, at, transformed);
        credentials = job.endpoint.auth && !listener ? this.#signingKeys.credentialsOf(job.endpoint.id, job.endpoint.auth) : null;
      } catch (err) {
        if (err instanceof TransformerUnavailableError) {
          await this.#putOffTransformation(job, err);
          return null;
        }
        if (!(err instanceof UnsealError)) throw err;
        await this.#putOff(job, err);
        return null;
      }
      this.#unsealOutage.succeeded();
      // fixed_ip endpoints go out through the relay, from the fixed IP pool; never directly.
      let sent: SendResult;
      try {
        sent = await this.#post(job, request, credentials, listener);
        this.#egressOutage.succeeded();
        if (this.#egressLosses.size > 0) this.#egressLosses.delete(job.delivery.id);
      } catch (err) {
        if (err instanceof SenderStoppingError) {
          this.#deps.logger.debug({ deliveryId: job.delivery.id, endpointId: job.endpoint.id }, 'stopping: a send waiting for its token given back');
          await this.#deps.leases.release(job, this.#deps.clock.now());
          return null;
        }
        if (!(err instanceof EgressUnavailableError)) throw err;
        if (this.#lostTooOften(job, err)) return noResponse(`internal: ${EGRESS_LOSSES_BEFORE_ATTEMPT} sending threads ended with this send`, 0);
        await this.#putOffEgress(job, err);
        return null;
      }
      // A transformation that moved the URL: the attempt records where it went.
      return request.url === job.endpoint.url ? sent : { ...sent, url: request.url };
    } catch (err) {
      this.#deps.logger.error({ err, deliveryId: job.delivery.id }, 'send failed unexpectedly');
      return noResponse('internal: the send failed inside Wirehook', 0);
    }
  }

  /** The POST itself: over a listener's connection, through the relay (fixed_ip), or directly; with a token when the endpoint has `auth`. */
  async #post(job: DeliveryJob, request: WebhookRequest, credentials: OAuthClientCredentials | null, listener: boolean): Promise<SendResult> {
    if (listener) return traceSend(job, request.url, () => (this.#deps.listen ?? NO_LISTENERS).send(request));
    const through = job.endpoint.fixedIp ? this.#deps.relay : this.#deps.sender;
    if (credentials === null) return traceSend(job, request.url, () => through.send(request));
    return this.#sendWithToken(job, request, credentials, through);
  }

  /**
   * Runs the endpoint's transformation on the webhook (its payload as the sender gave it, its
   * custom headers opened, its URL), at the attempt's time. @returns the checked request to
   * send, or the attempt's result when nothing is to be sent: `cancelled: …` (the delivery ends
   * success) or `transformation: …` (the attempt failed; the delivery is retried as any).
   * @throws UnsealError when the custom headers do not open here (the send is put off).
   */
  async #transform(job: DeliveryJob, code: string, at: number): Promise<{ request: CheckedTransformation } | { result: SendResult }> {
    const started = performance.now();
    const input = {
      event_type: job.message.eventType,
      payload: JSON.parse(job.message.payload) as unknown,
      headers: { ...customHeaders(job, this.#signingKeys) },
      url: job.endpoint.url,
    };
    const turn = { tenant: job.tenant, endpointId: job.endpoint.id, simulation: false };
    const ran = await runTransformation(this.#deps.transforms, code, input, at, turn, urlBoundsOf(job.endpoint));
    const seconds = (performance.now() - started) / 1000;
    this.#deps.metrics.transformations.inc({ result: ran.kind });
    this.#deps.metrics.transformationDuration.observe(seconds);
    if (ran.kind === 'send') return { request: ran.request };
    return { result: noResponse(ran.kind === 'cancel' ? CANCELLED_ATTEMPT_ERROR : ran.error, Math.round(seconds * 1000)) };
  }

  /**
   * A send to an endpoint with OAuth client credentials: its access token as `Authorization:
   * Bearer`, fetched (or shared) by OAuthTokens from where the webhook goes (the relay for a
   * fixed_ip endpoint), with the endpoint's client certificate when the token endpoint is on its
   * host. A 401 drops the token and the webhook is sent once more with a new one, in the same
   * attempt. No token: the attempt fails as `auth` and the endpoint is not sent to.
   */
  async #sendWithToken(job: DeliveryJob, request: WebhookRequest, credentials: OAuthClientCredentials, through: TokenSender): Promise<SendResult> {
    const endpoint = job.endpoint;
    const auth = endpoint.auth!;
    const fetch: TokenFetch = { poolKey: endpoint.id, credentials };
    if (request.tls !== undefined && sameHost(credentials.tokenUrl, request.url)) fetch.tls = request.tls;
    // The token endpoint is checked by the URL rules at send time, as the endpoint is: a token URL
    // stored around the API never gets the secret.
    const tokenUrlViolation = urlRuleViolation(credentials.tokenUrl);
    if (tokenUrlViolation !== null) return noResponse(`auth: token_url refused (${tokenUrlViolation})`, 0);
    const fetchToken = () => through.fetchToken(fetch);
    const secrets = [credentials.clientSecret];
    const first = await this.#unlessStopping(() => this.#tokens.token(endpoint.id, auth, fetchToken, secrets));
    if (first === STOPPING) throw new SenderStoppingError();
    if ('error' in first) return noResponse(first.error, first.durationMs);
    const sent = await traceSend(job, request.url, () => through.send(withToken(request, first.token)));
    if (sent.status !== 401) return sent;
    // The receiver refused the token (revoked, or expired early): one new one, then one more send.
    // Not while stopping: the 401 is the answer (the next attempt fetches a new token).
    const again = await this.#unlessStopping(() => this.#tokens.refresh(endpoint.id, auth, fetchToken, first.token, secrets));
    if (again === STOPPING) return sent;
    if ('error' in again) return noResponse(again.error, sent.durationMs + again.durationMs);
    // No newer token (the refused one is under 30 s old): the 401 is the attempt's answer.
    if (again.token === first.token) return sent;
    const resent = await traceSend(job, request.url, () => through.send(withToken(request, again.token)));
    return { ...resent, durationMs: sent.durationMs + again.durationMs + resent.durationMs };
  }

  /** `step`'s outcome, or STOPPING as soon as the dispatcher stops (a step begun goes on: settled() waits for it); after the stop none begins. */
  #unlessStopping<T>(step: () => Promise<T>): Promise<T | typeof STOPPING> {
    if (this.#stopped) return Promise.resolve(STOPPING);
    return new Promise((resolve, reject) => {
      const giveWay = () => resolve(STOPPING);
      this.#waitingForToken.add(giveWay);
      step()
        .then(resolve, reject)
        .finally(() => this.#waitingForToken.delete(giveWay));
    });
  }

  /**
   * A transformation that could not be run for a reason of ours — no sandbox thread free soon
   * enough (the wait holds a dispatcher place and an endpoint slot), the sandbox or the store
   * failing, the transformation changed since the claim: no attempt (it would count against the
   * endpoint), the delivery back in the store for TRANSFORMATION_RETRY_MS.
   */
  async #putOffTransformation(job: DeliveryJob, err: TransformerUnavailableError): Promise<void> {
    this.#deps.metrics.transformations.inc({ result: 'put_off' });
    this.#deps.logger.debug({ deliveryId: job.delivery.id, endpointId: job.endpoint.id, reason: err.message }, 'transformation put off');
    await this.#deps.leases.release(job, this.#deps.clock.now() + TRANSFORMATION_RETRY_MS);
  }

  /** Whether this loss is the delivery's EGRESS_LOSSES_BEFORE_ATTEMPT-th held by an ending thread (its count then starts again). */
  #lostTooOften(job: DeliveryJob, err: EgressUnavailableError): boolean {
    if (!err.held) return false;
    const id = job.delivery.id;
    const losses = (this.#egressLosses.get(id) ?? 0) + 1;
    if (losses < EGRESS_LOSSES_BEFORE_ATTEMPT) {
      remember(this.#egressLosses, id, losses, EGRESS_LOSSES_TRACKED);
      return false;
    }
    this.#egressLosses.delete(id);
    return true;
  }

  /**
   * The egress thread ended or stuck with this send (or is starting again): ours, not the
   * endpoint's, so no attempt (it would count toward the retries and the automatic stop); the
   * delivery is due again a second later. Logged once an outage, with its cause.
   */
  async #putOffEgress(job: DeliveryJob, err: EgressUnavailableError): Promise<void> {
    this.#egressOutage.failed(err, 1, { deliveryId: job.delivery.id, endpointId: job.endpoint.id });
    await this.#deps.leases.release(job, this.#deps.clock.now() + EGRESS_RETRY_MS);
  }

  /**
   * The endpoint's signing secret does not open with this process's key ring: the fault is
   * ours, not the endpoint's, so no attempt is recorded (an attempt would count toward the
   * endpoint's automatic stop). The delivery goes back to the store for a minute, for a
   * replica with the right ring, or this one once it is restarted with it.
   */
  async #putOff(job: DeliveryJob, err: UnsealError): Promise<void> {
    this.#deps.metrics.unsealErrors.inc();
    this.#unsealOutage.failed(err, 1, { deliveryId: job.delivery.id, endpointId: job.endpoint.id });
    await this.#deps.leases.release(job, this.#deps.clock.now() + UNSEAL_RETRY_MS);
  }
}

/** What a step waited for by #unlessStopping gives when the dispatcher stops first. */
const STOPPING = Symbol('stopping');

/** Thrown out of a send that gave way to the dispatcher's stop before anything went out (put off, not an attempt). */
class SenderStoppingError extends Error {
  constructor() {
    super('the dispatcher is stopping');
  }
}

/** `request` with the access token: custom headers never carry Authorization beside `auth` (the API refuses it). */
function withToken(request: WebhookRequest, token: string): WebhookRequest {
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
}

/**
 * An endpoint whose client certificate has expired is not sent to: the attempt fails as `tls`
 * saying so (a receiver would refuse it, or worse, one that does not check would take it).
 */
function expiredCertificate(job: DeliveryJob, at: number): string | null {
  const notAfter = job.endpoint.tls?.info.notAfter;
  if (notAfter === undefined || notAfter > at) return null;
  return `tls: the endpoint's client certificate expired on ${new Date(notAfter).toISOString()}; set a new one (tls)`;
}
