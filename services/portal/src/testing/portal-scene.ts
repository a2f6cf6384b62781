// Test support: the portal's server in-process on an ephemeral port, over a SQLite store in a
// temporary directory, a ManualClock, an intake that records what it is handed, and the
// log lines it writes. Tenants, consumers and links are made in the store, as the gateway
// makes them; endpoints through the portal's own API (so their secrets are sealed).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  hashPortalToken,
  ManualClock,
  newId,
  newPortalToken,
  SecretBox,
  type ConsumerId,
  type EndpointId,
  type Environment,
  type IntakePort,
  type Org,
  type PlanName,
  type RecoveryPort,
  type SendMessageInput,
  type Tenant,
} from '@wirehook/core';
import { AddressPolicy } from '@wirehook/egress';
import { MemoryKv, RateLimiter } from '@wirehook/kv';
import { createHttpMetrics, createLogger, createRegistry } from '@wirehook/platform';
import { openSqliteStore, type PortalToken, type SqliteStore, type Store } from '@wirehook/store';
import { jsonLines } from '@wirehook/testkit';
import { createPortal } from '../create-portal.ts';
import type { PortalDeps } from '../deps.ts';
import { TransformRunner } from '@wirehook/transform';

/** An intake that records each send and answers one delivery; nothing is written. */
export class RecordingIntake implements IntakePort {
  readonly sent: SendMessageInput[] = [];

  async send(input: SendMessageInput) {
    this.sent.push(input);
    return { id: `msg_recorded_${this.sent.length}`, deliveries: 1, usageMonth: 0 };
  }

  async retryDelivery(): Promise<never> {
    throw new Error('retryDelivery is not part of these tests');
  }

  async releaseHeld(): Promise<number> {
    return 0;
  }
}

const noRecovery: RecoveryPort = {
  start: async () => {
    throw new Error('recovery is not part of these tests');
  },
  get: async () => null,
};

/** A built front end's entry files, as Vite's manifest names them. */
export function writeBuiltFrontEnd(distDir: string): void {
  mkdirSync(join(distDir, '.vite'), { recursive: true });
  mkdirSync(join(distDir, 'assets'), { recursive: true });
  writeFileSync(join(distDir, 'assets', 'main-abc.js'), 'export {};\n');
  writeFileSync(join(distDir, 'assets', 'main-abc.css'), 'body{}\n');
  writeFileSync(
    join(distDir, '.vite', 'manifest.json'),
    JSON.stringify({ 'src/main.tsx': { file: 'assets/main-abc.js', css: ['assets/main-abc.css'], isEntry: true } }),
  );
}

export interface PortalSceneOptions {
  /** false: the front end is not built (no manifest). Default true. */
  built?: boolean;
  /** Wraps the store the server reads (to make a call fail). */
  wrapStore?: (store: Store) => Store;
}

interface SceneParts {
  dir: string;
  store: SqliteStore;
  deps: PortalDeps;
  clock: ManualClock;
  intake: RecordingIntake;
  logLines: Record<string, unknown>[];
  server: Server;
}

export class PortalScene {
  /** The server's clock: move it to expire links. */
  readonly clock: ManualClock;
  /** What the server handed message-intake. */
  readonly intake: RecordingIntake;
  /** The server's log, parsed. */
  readonly logLines: Record<string, unknown>[];
  /** The store itself (the server's may be wrapped). */
  readonly store: SqliteStore;
  readonly deps: PortalDeps;
  readonly #dir: string;
  readonly #server: Server;
  #n = 0;

  private constructor(parts: SceneParts) {
    this.#dir = parts.dir;
    this.store = parts.store;
    this.deps = parts.deps;
    this.clock = parts.clock;
    this.intake = parts.intake;
    this.logLines = parts.logLines;
    this.#server = parts.server;
  }

  static async start(options: PortalSceneOptions = {}): Promise<PortalScene> {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-portal-'));
    const distDir = join(dir, 'dist');
    mkdirSync(distDir);
    if (options.built ?? true) writeBuiltFrontEnd(distDir);
    const store = openSqliteStore({ path: join(dir, 'store.sqlite') });
    const { destination, lines } = jsonLines();
    const clock = new ManualClock(Date.UTC(2026, 4, 12, 9, 0, 0));
    const intake = new RecordingIntake();
    const deps: PortalDeps = {
      store: options.wrapStore ? options.wrapStore(store) : store,
      intake,
      recovery: noRecovery,
      rateLimiter: new RateLimiter({ kv: new MemoryKv({ clock }), clock }),
      clock,
      logger: createLogger({ name: 'portal', level: 'info', format: 'json', destination }),
      metrics: createHttpMetrics(createRegistry('portal')),
      secretBox: SecretBox.fromBase64(SecretBox.generateKey()),
      addressPolicy: new AddressPolicy({ allowHosts: '' }),
      // Endpoint URLs are checked by resolving them: every name is one public address here.
      lookup: async () => [{ address: '93.184.215.14', family: 4 }],
      retentionMonths: 3,
      transforms: new TransformRunner(),
    };
    const app = createPortal(deps, { distDir });
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    return new PortalScene({ dir, store, deps, clock, intake, logLines: lines, server });
  }

  /** The server's address of `path`. */
  url(path: string): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}${path}`;
  }

  /** A new organization on `plan`, and its tenant in `env`. */
  async tenant(plan: PlanName = 'starter', env: Environment = 'live'): Promise<{ t: Tenant; org: Org }> {
    this.clock.advance(1_000);
    const org = await this.store.orgs.create({ id: newId('org', this.clock), name: `org ${++this.#n}`, plan, ownerEmail: null, createdAt: this.clock.now() });
    return { t: { orgId: org.id, env }, org };
  }

  async consumer(t: Tenant, externalId = `customer-${++this.#n}`): Promise<ConsumerId> {
    this.clock.advance(1_000);
    const consumer = await this.store.consumers.create(t, { id: newId('consumer', this.clock), externalId, name: 'Customer', createdAt: this.clock.now() });
    return consumer.id;
  }

  /** A portal link for `consumerId`, made as the gateway makes one (15 minutes unless `overrides` say). */
  async link(t: Tenant, consumerId: ConsumerId, overrides: Partial<PortalToken> = {}): Promise<{ token: string; hash: string; expiresAt: number }> {
    const token = newPortalToken();
    const hash = hashPortalToken(token);
    const now = this.clock.now();
    const stored: PortalToken = { hash, tenant: t, consumerId, frameOrigin: null, locale: null, createdAt: now, expiresAt: now + 15 * 60_000, ...overrides };
    await this.store.portalTokens.create(stored);
    return { token, hash, expiresAt: stored.expiresAt };
  }

  /** A call to the portal's API with `authorization` (a link's token, or a whole header value with `raw`). */
  // biome-ignore lint/suspicious/noExplicitAny: the tests read answers field by field, as the e2e tests do.
  async api(token: string | { raw: string } | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== null) headers['authorization'] = typeof token === 'string' ? `Bearer ${token}` : token.raw;
    const res = await fetch(this.url(`/api${path}`), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: res.status === 204 ? null : await res.json(), headers: res.headers };
  }

  /** An endpoint of the link's consumer, made through the portal's API. @returns its id and signing secret. */
  async endpoint(token: string, consumerId: ConsumerId, path = '/hooks'): Promise<{ id: EndpointId; secret: string }> {
    const made = await this.api(token, 'POST', '/endpoints', { consumer_id: consumerId, url: `https://hooks.example.com${path}` });
    if (made.status !== 201) throw new Error(`endpoint not made: ${made.status} ${JSON.stringify(made.body)}`);
    return { id: made.body.id as EndpointId, secret: made.body.secret as string };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await this.store.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
