// Test support: a SQLite store in a temporary directory with a ManualClock, the in-process
// bus with a consumer that records the dispatch jobs it is handed (the dispatchers' side),
// and endpoints whose deliveries fail or succeed on demand through deliveries.complete — the
// path the dispatcher takes — so a recovery finds its targets as it would in production.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeDispatchJob, DISPATCH_SUBJECT, dispatchJobTenant, MemoryBus } from '@wirehook/bus';
import { ManualClock, newId, type DeliveryId, type Endpoint, type Tenant } from '@wirehook/core';
import { silentLogger, type Logger } from '@wirehook/platform';
import { claimRef, openSqliteStore, type AttemptOutcome, type DeliveryJob, type SqliteStore } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { plainEndpoint } from '../../../../packages/store/test/contract/fixtures.ts';
import { RecoveryWorker } from '../recovery-worker.ts';

/** A store, a bus and a clock shared by the services and workers a test builds. */
export class RecoveryScene {
  readonly clock: ManualClock;
  readonly store: SqliteStore;
  readonly bus = new MemoryBus();
  /** Delivery ids of the dispatch jobs published so far, in order. */
  readonly jobs: DeliveryId[] = [];
  /** The tenant each job's header names, in the same order. */
  readonly jobTenants: (Tenant | undefined)[] = [];
  readonly #dir: string;
  #n = 0;
  #storeClosed = false;

  constructor(startAt = Date.UTC(2026, 4, 12, 9, 0, 0)) {
    this.clock = new ManualClock(startAt);
    this.#dir = mkdtempSync(join(tmpdir(), 'wirehook-recovery-'));
    this.store = openSqliteStore({ path: join(this.#dir, 'store.sqlite') });
    this.bus.consume(
      DISPATCH_SUBJECT,
      async (message) => {
        this.jobs.push(decodeDispatchJob(message.data));
        this.jobTenants.push(dispatchJobTenant(message.headers));
        return 'ack';
      },
      { concurrency: 1 },
    );
  }

  /** A worker on this scene's store, bus and clock; `endpointSlots` 16 (the default of ENDPOINT_SLOTS) unless given. */
  worker(options: { endpointSlots?: number; releaseLeasesAtStart?: boolean; registry?: Registry; logger?: Logger; tickMs?: number } = {}): RecoveryWorker {
    return new RecoveryWorker({
      store: this.store,
      bus: this.bus,
      clock: this.clock,
      logger: options.logger ?? silentLogger(),
      registry: options.registry,
      endpointSlots: options.endpointSlots ?? 16,
      releaseLeasesAtStart: options.releaseLeasesAtStart ?? false,
      tickMs: options.tickMs ?? 60_000,
    });
  }

  /** A new organization's live environment. */
  async tenant(): Promise<Tenant> {
    const org = await this.store.orgs.create({
      id: newId('org', this.clock),
      name: `org ${++this.#n}`,
      plan: 'business',
      ownerEmail: null,
      createdAt: this.clock.now(),
    });
    return { orgId: org.id, env: 'live' };
  }

  /** An active endpoint of `t` on a consumer of its own, retry count 0: one failed attempt and its delivery is `failed`. */
  async endpoint(t: Tenant): Promise<Endpoint> {
    const n = ++this.#n;
    const consumer = await this.store.consumers.create(t, {
      id: newId('consumer', this.clock),
      externalId: `customer-${n}`,
      name: null,
      createdAt: this.clock.now(),
    });
    const endpoint = plainEndpoint(newId('endpoint', this.clock), consumer.id, this.clock.now(), { url: `https://hooks.customer-${n}.test/wirehook` });
    return this.store.endpoints.create(t, endpoint, { sealed: 'v1.x', createdAt: this.clock.now(), expiresAt: null }, 1_000_000);
  }

  /** `n` messages to the endpoint's consumer, each delivery answered 503 once (so `failed`); their delivery ids, oldest first. */
  async failed(t: Tenant, endpoint: Endpoint, n: number): Promise<DeliveryId[]> {
    const consumer = await this.store.consumers.get(t, endpoint.consumerId);
    const ids: DeliveryId[] = [];
    for (let i = 0; i < n; i++) {
      const now = this.clock.now();
      const created = await this.store.messages.create(t, {
        id: newId('message', this.clock),
        eventType: 'order.created',
        payload: `{"i":${i}}`,
        createdAt: now,
        consumerExternalId: consumer!.externalId,
        newConsumerId: newId('consumer', this.clock),
        idempotencyKey: null,
        idempotencySince: now,
        counters: [],
      });
      for (const id of created.deliveryIds) {
        await this.#attempt(id, (job) => ({ ...this.#outcome(job, 503), status: 'failed', nextAttemptAt: null, endpoint: { succeeded: false } }));
        ids.push(id);
      }
    }
    return ids;
  }

  /** The dispatchers' part: each of `ids` (due now) is claimed and answered 200, freeing its endpoint's slot. */
  async deliver(ids: readonly DeliveryId[]): Promise<void> {
    for (const id of ids) {
      await this.#attempt(id, (job) => ({ ...this.#outcome(job, 200), status: 'success', nextAttemptAt: null, endpoint: { succeeded: true } }));
    }
  }

  /** The delivery's status as the store has it. */
  async status(t: Tenant, id: DeliveryId): Promise<string | undefined> {
    return (await this.store.deliveries.get(t, id))?.delivery.status;
  }

  /** The store goes away (every call fails from now on): an outage that does not end. */
  async storeOutage(): Promise<void> {
    this.#storeClosed = true;
    await this.store.close();
  }

  async close(): Promise<void> {
    await this.bus.close();
    if (!this.#storeClosed) await this.store.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #attempt(id: DeliveryId, outcome: (job: DeliveryJob) => AttemptOutcome): Promise<void> {
    const now = this.clock.now();
    const job = await this.store.deliveries.claim(id, now, now + 60_000);
    if (job === null) throw new Error(`delivery ${id} could not be claimed at ${now}`);
    await this.store.deliveries.complete(claimRef(job), outcome(job));
  }

  #outcome(job: DeliveryJob, status: number): Omit<AttemptOutcome, 'status' | 'nextAttemptAt' | 'endpoint'> {
    return {
      attempt: {
        id: newId('attempt', this.clock),
        deliveryId: job.delivery.id,
        endpointId: job.delivery.endpointId,
        at: this.clock.now(),
        responseStatus: status,
        responseHead: `HTTP/1.1 ${status}`,
        durationMs: 5,
        error: status >= 400 ? `http_status: ${status}` : null,
        via: 'direct',
        sourceIp: null,
        url: job.endpoint.url,
      },
      countsTowardPolicy: !job.delivery.manual,
    };
  }
}
