// Test support for the dispatcher's unit tests, not used by the service: a real in-memory
// SQLite store with endpoints whose signing secrets open with the scene's key, a sender that
// answers as the test says, and the dispatcher's metrics read back by name.
import { Writable } from 'node:stream';
import { context, type Context } from '@opentelemetry/api';
import { MemoryBus } from '@wirehook/bus';
import { ManualClock, SecretBox, type DeliveryId, type Endpoint, type EndpointAuth, type Tenant } from '@wirehook/core';
import { MemoryKv } from '@wirehook/kv';
import type { TokenFetch } from '@wirehook/egress';
import { createLogger, type Logger } from '@wirehook/platform';
import { openSqliteStore, type DeliveryJob, type Store } from '@wirehook/store';
import { Registry } from 'prom-client';
import { Fixtures } from '../../../../packages/store/test/contract/fixtures.ts';
import { MessageFixtures } from '../../../../packages/store/test/contract/message-fixtures.ts';
import { createDispatcherMetrics } from '../metrics.ts';
import type { SendResult } from '../outcome.ts';
import { createThroughputMetrics } from '../throughput-metrics.ts';
import type { WebhookRequest } from '../webhook-request.ts';

/** A 200, as the egress client reports it. */
export const OK: SendResult = { ok: true, status: 200, responseHead: 'HTTP/1.1 200 OK', error: null, durationMs: 5, sourceIp: null };

/** One store, bus, Kv, clock, key and metrics registry; endpoints each in a tenant of their own. */
export class DispatchScene {
  readonly clock = new ManualClock();
  readonly box = new SecretBox(Buffer.alloc(32, 7));
  readonly registry = new Registry();
  readonly metrics = createDispatcherMetrics(this.registry);
  readonly throughputMetrics = createThroughputMetrics(this.registry);
  /** The endpoints' shared throughput state, as the process's MemoryKv is in embedded mode. */
  readonly kv = new MemoryKv({ clock: this.clock });
  readonly bus = new MemoryBus();
  readonly store: Store = openSqliteStore({ path: ':memory:' });
  readonly m = new MessageFixtures(new Fixtures(() => this.store, this.clock));

  /** A new tenant with one active, direct endpoint whose secret opens with `box` (default: the scene's). */
  async endpoint(overrides: Partial<Endpoint> = {}, box = this.box): Promise<{ t: Tenant; endpoint: Endpoint }> {
    const t = await this.m.f.tenant();
    return { t, endpoint: await this.endpointOf(t, 'customer-1', overrides, box) };
  }

  /** One more active, direct endpoint of tenant `t`, of its new consumer `externalId` (messages to it: `dueTo`). */
  async endpointOf(t: Tenant, externalId: string, overrides: Partial<Endpoint> = {}, box = this.box): Promise<Endpoint> {
    const f = this.m.f;
    const consumer = await f.consumer(t, externalId);
    const record = f.endpoint(consumer.id, { eventTypes: null, fixedIp: false, failingSince: null, disabledReason: null, compatSignature: null, ...overrides });
    const sealed = box.seal(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, record.id);
    return this.store.endpoints.create(t, record, f.secret(sealed), 20);
  }

  /** Gives `endpoint` OAuth client credentials (its client secret sealed for it), as the API stores them. */
  async withOAuth(t: Tenant, endpoint: Endpoint, auth: Partial<EndpointAuth> = {}): Promise<void> {
    await this.store.endpoints.update(t, endpoint.id, {
      auth: {
        type: 'oauth2_client_credentials',
        tokenUrl: 'https://auth.acme.example/oauth/token',
        clientId: 'wirehook',
        sealedSecret: this.box.seal('s3cret', endpoint.id),
        scope: 'hooks',
        audience: null,
        tokenAuthMethod: 'client_secret_post',
        ...auth,
      },
    });
  }

  /** Sends `count` messages to the tenant's endpoint, one second apart: their deliveries' ids, oldest first. */
  async due(t: Tenant, count = 1): Promise<DeliveryId[]> {
    return this.dueTo(t, 'customer-1', count);
  }

  /** Sends `count` messages to consumer `externalId` of `t`, one second apart: their deliveries' ids, oldest first. */
  async dueTo(t: Tenant, externalId: string, count = 1): Promise<DeliveryId[]> {
    const ids: DeliveryId[] = [];
    for (let i = 0; i < count; i++) ids.push(this.m.only(await this.m.send(t, { consumerExternalId: externalId })));
    return ids;
  }

  /** Claims `id` now for `leaseMs`; fails the test when it is not claimable. */
  async claim(id: DeliveryId, leaseMs = 17_000): Promise<DeliveryJob> {
    const now = this.clock.now();
    const job = await this.store.deliveries.claim(id, now, now + leaseMs);
    if (job === null) throw new Error(`delivery ${id} should be claimable`);
    return job;
  }

  async statusOf(t: Tenant, id: DeliveryId): Promise<string | undefined> {
    return (await this.store.deliveries.get(t, id))?.delivery.status;
  }

  /** Which of `ids` the store lists as due at `at` (claimable: due and not leased). */
  async dueAt(at: number, ids: readonly DeliveryId[]): Promise<DeliveryId[]> {
    return this.m.dueOf(at, ids);
  }

  /** The value of metric `name` with `labels`; 0 when it has none. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const values = (await this.registry.getSingleMetric(name)?.get())?.values ?? [];
    const found = values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
    return found?.value ?? 0;
  }

  async close(): Promise<void> {
    await this.bus.close();
    await this.kv.close();
    await this.store.close();
  }
}

/** A sender that records each request and answers 200 at once, or holds it until the test answers. */
export class FakeSender {
  readonly requests: WebhookRequest[] = [];
  /** The context each request was sent in (with tracing started, its trace). */
  readonly contexts: Context[] = [];
  readonly #held: { request: WebhookRequest; answer: (result: SendResult) => void }[] = [];
  #holding: 'none' | 'all' | Set<string> = 'none';

  /** Holds the sends to `endpointId` from now on (every send when none is given). */
  hold(endpointId?: string): void {
    if (endpointId === undefined) this.#holding = 'all';
    else this.#holding = new Set([...(this.#holding instanceof Set ? this.#holding : []), endpointId]);
  }

  /** Sends held and not answered, per endpoint id. */
  held(endpointId?: string): number {
    return this.#held.filter((h) => endpointId === undefined || h.request.poolKey === endpointId).length;
  }

  /** Answers the oldest held send (of `endpointId` when given) with `result`. */
  answer(endpointId?: string, result: SendResult = OK): void {
    const i = this.#held.findIndex((h) => endpointId === undefined || h.request.poolKey === endpointId);
    if (i === -1) throw new Error('no send is held');
    this.#held.splice(i, 1)[0]!.answer(result);
  }

  /** Stops holding and answers every held send with 200. */
  release(): void {
    this.#holding = 'none';
    for (const h of this.#held.splice(0)) h.answer(OK);
  }

  /** OAuth token requests, in order; each answered by `tokenAnswer` (default: a token for an hour). */
  readonly tokenFetches: TokenFetch[] = [];
  tokenAnswer: (fetch: TokenFetch, n: number) => SendResult = (_fetch, n) => tokenResult(`token-${n}`, 3_600);

  fetchToken(fetch: TokenFetch): Promise<SendResult> {
    this.tokenFetches.push(fetch);
    return Promise.resolve(this.tokenAnswer(fetch, this.tokenFetches.length));
  }

  send(request: WebhookRequest): Promise<SendResult> {
    this.requests.push(request);
    this.contexts.push(context.active());
    const holds = this.#holding === 'all' || (this.#holding instanceof Set && this.#holding.has(request.poolKey));
    if (!holds) return Promise.resolve(OK);
    return new Promise((answer) => this.#held.push({ request, answer }));
  }
}

/** A token endpoint's 200 with `token`, valid `expiresIn` seconds. */
export function tokenResult(token: string, expiresIn: number): SendResult {
  const body = JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });
  return { ok: true, status: 200, responseHead: body, error: null, durationMs: 1, sourceIp: '127.0.0.1' };
}

/** Waits until `check` passes (it throws or returns false until then); fails after `ms`. */
export async function until(check: () => unknown | Promise<unknown>, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await check()) !== false) return;
      if (Date.now() > deadline) throw new Error('condition still false');
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A logger that keeps its lines (debug and up), each as its JSON fields. */
export function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'debug', format: 'json', destination }), lines };
}
