// Test support: an in-memory SQLite store with a ManualClock, organizations with endpoints
// that fail on demand (through deliveries.complete, so the outbox is written as in
// production), targets, and a sender that records what it was given instead of sending.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ManualClock, newId, type AlertTargetId, type Endpoint, type Environment, type OrgId, type PlanName, type Tenant } from '@wirehook/core';
import { silentLogger } from '@wirehook/platform';
import { claimRef, openSqliteStore, type AlertTarget, type NoticeDelivery, type SqliteStore, type Store } from '@wirehook/store';
import { plainEndpoint } from '../../../../packages/store/test/contract/fixtures.ts';
import type { Registry } from 'prom-client';
import { AlertingWorker } from '../alerting-worker.ts';
import type { NoticeContent } from '../notice-content.ts';
import type { NoticeResult, NoticeSenderPort } from '../notice-sender.ts';

/** A sender that records every notice it is handed; `answer` decides each try (default: sent). */
export class RecordingSender implements NoticeSenderPort {
  readonly canEmail = true;
  readonly sent: { target: AlertTarget | 'owner'; notice: NoticeDelivery; content: NoticeContent }[] = [];
  answer: (target: AlertTarget | 'owner', notice: NoticeDelivery) => Promise<NoticeResult> = async () => ({
    ok: true,
    status: 200,
    error: null,
    durationMs: 1,
  });

  async send(target: AlertTarget, notice: NoticeDelivery): Promise<NoticeResult> {
    this.sent.push({ target, notice, content: JSON.parse(notice.body) as NoticeContent });
    return this.answer(target, notice);
  }

  async sendOwnerEmail(_to: string, notice: NoticeDelivery): Promise<NoticeResult> {
    this.sent.push({ target: 'owner', notice, content: JSON.parse(notice.body) as NoticeContent });
    return this.answer('owner', notice);
  }

  /** The notices a target was sent, in order. */
  to(targetId: AlertTargetId): NoticeContent[] {
    return this.sent.filter((s) => s.target !== 'owner' && s.target.id === targetId).map((s) => s.content);
  }
}

export class AlertScene {
  readonly clock: ManualClock;
  readonly store: SqliteStore;
  readonly sender = new RecordingSender();
  #n = 0;

  readonly #dir: string;

  constructor(startAt = Date.UTC(2026, 4, 12, 9, 0, 0)) {
    this.clock = new ManualClock(startAt);
    this.#dir = mkdtempSync(join(tmpdir(), 'wirehook-alerting-'));
    this.store = openSqliteStore({ path: join(this.#dir, 'store.sqlite') });
  }

  /** Sets the organization's live messages of the clock's month (the counter intake keeps). */
  setLiveUsage(orgId: OrgId, used: number): void {
    const db = new DatabaseSync(join(this.#dir, 'store.sqlite'));
    try {
      const key = `live:${orgId}:${new Date(this.clock.now()).toISOString().slice(0, 7)}`;
      db.prepare('INSERT INTO usage_counters (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
        key,
        used,
        this.clock.now() + 90 * 86_400_000,
      );
    } finally {
      db.close();
    }
  }

  /** Notices of `type` queued in the store, sent or not (read beside the store, as the outbox does not list them). */
  noticesQueued(type: string): number {
    const db = new DatabaseSync(join(this.#dir, 'store.sqlite'));
    try {
      return Number(db.prepare('SELECT count(*) AS n FROM alert_notices WHERE type = ?').get(type)?.['n']);
    } finally {
      db.close();
    }
  }

  /** The worker on this scene's store, or on `store` (the scene's seen through a stand-in). */
  worker(options: { sendTimeoutMs?: number; registry?: Registry; store?: Store } = {}): AlertingWorker {
    return new AlertingWorker({ store: this.store, clock: this.clock, logger: silentLogger(), sender: this.sender, tickMs: 60_000, ...options });
  }

  async org(plan: PlanName = 'starter', ownerEmail: string | null = 'owner@acme.test'): Promise<OrgId> {
    const org = await this.store.orgs.create({
      id: newId('org', this.clock),
      name: `org ${++this.#n}`,
      plan,
      ownerEmail,
      createdAt: this.clock.now(),
    });
    return org.id;
  }

  async target(orgId: OrgId, env: Environment = 'live'): Promise<AlertTargetId> {
    const id = newId('alertTarget', this.clock);
    await this.store.alerts.createTarget(
      { orgId, env },
      { id, type: 'webhook', url: `https://alerts.acme.test/${id}`, address: null, sealedSecret: null, createdAt: this.clock.now() },
    );
    return id;
  }

  /** An active endpoint (its own consumer) of `t`, retry count 0 unless given. */
  async endpoint(t: Tenant, retry: Endpoint['retry'] = { count: 0, interval: '1m' }, overrides: Partial<Endpoint> = {}): Promise<Endpoint> {
    const n = ++this.#n;
    const consumer = await this.store.consumers.create(t, {
      id: newId('consumer', this.clock),
      externalId: `customer-${n}`,
      name: null,
      createdAt: this.clock.now(),
    });
    const endpoint = plainEndpoint(newId('endpoint', this.clock), consumer.id, this.clock.now(), {
      url: `https://hooks.customer-${n}.test/wirehook`,
      retry,
      ...overrides,
    });
    return this.store.endpoints.create(t, endpoint, { sealed: 'v1.x', createdAt: this.clock.now(), expiresAt: null }, 1_000_000);
  }

  /** One message to the endpoint's consumer whose one attempt gets a 503: its retries run out (`exhausted`), or it waits to retry. */
  async fail(t: Tenant, endpoint: Endpoint, outcome: 'exhausted' | 'retrying' = 'exhausted'): Promise<void> {
    const now = this.clock.now();
    const consumer = await this.store.consumers.get(t, endpoint.consumerId);
    const created = await this.store.messages.create(t, {
      id: newId('message', this.clock),
      eventType: 'order.created',
      payload: '{}',
      createdAt: now,
      consumerExternalId: consumer!.externalId,
      newConsumerId: newId('consumer', this.clock),
      idempotencyKey: null,
      idempotencySince: now,
      counters: [],
    });
    for (const deliveryId of created.deliveryIds) {
      const job = await this.store.deliveries.claim(deliveryId, now, now + 60_000);
      if (job === null) throw new Error(`delivery ${deliveryId} could not be claimed`);
      await this.store.deliveries.complete(claimRef(job), {
        attempt: {
          id: newId('attempt', this.clock),
          deliveryId,
          endpointId: endpoint.id,
          at: now,
          responseStatus: 503,
          responseHead: 'HTTP/1.1 503 Service Unavailable',
          durationMs: 5,
          error: 'http_status: 503',
          via: 'direct',
          sourceIp: null,
          url: job.endpoint.url,
        },
        status: outcome === 'exhausted' ? 'failed' : 'retrying',
        nextAttemptAt: outcome === 'exhausted' ? null : now + 3_600_000,
        countsTowardPolicy: true,
        endpoint: { succeeded: false },
      });
    }
  }

  async close(): Promise<void> {
    await this.store.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
