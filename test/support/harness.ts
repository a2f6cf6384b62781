// The whole of embedded Wirehook in the test process — gateway, intake, dispatcher,
// retention — on ephemeral loopback ports over a fresh DATA_DIR, with a ManualClock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '@wirehook/admin';
import { ManualClock, type Environment, type PlanName, type Scope } from '@wirehook/core';
import type { LookupFn } from '@wirehook/egress';
import { silentLogger, type Logger } from '@wirehook/platform';
import type { Store } from '@wirehook/store';
import { ApiClient } from '@wirehook/testkit';
import { embeddedConfigSchema } from '../../services/embedded/src/config.ts';
import { createEmbedded, type Embedded } from '../../services/embedded/src/create-embedded.ts';

export interface HarnessOptions {
  /** DELIVERY_ALLOW_HOSTS; default "localhost". */
  allowHosts?: string;
  /** DELIVERY_RESOLVE: names answered before DNS (the receivers', reachingReceivers). */
  resolve?: string;
  /** A resolver of the test's own: the dispatcher then sends on the test's thread, not the egress thread (a function cannot cross). */
  lookup?: LookupFn;
  retentionMonths?: number;
  /** CA trusted for deliveries (the TestReceiver's). */
  ca?: string;
  deliveryTimeoutMs?: number;
  endpointSlots?: number;
  /** DISPATCH_CONCURRENCY; default the service's. */
  dispatchConcurrency?: number;
  /** Where the test's ManualClock starts (Unix ms); default: now. */
  startAt?: number;
  /** The clock follows the wall clock (plus what `advance` adds): for rates and holds measured in real seconds. */
  realTime?: boolean;
  /** WIREHOOK_SECRET_KEY; default: the key file of the run's XDG_CONFIG_HOME. */
  secretKey?: string;
  /** An existing DATA_DIR (a restart): kept at close. Default: a new one, removed at close. */
  dataDir?: string;
  /** Where the process logs; default: nowhere. */
  logger?: Logger;
  /** RELAY_SOURCE_IPS: the fixed IP pool of the in-process relay; default: none. */
  relaySourceIps?: string;
  /** SMTP_URL; default: none (e-mail targets refused). */
  smtpUrl?: string;
}

/** A tenant made through the admin commands, with a client holding its key. */
export interface TestTenant {
  orgId: string;
  keyId: string;
  key: string;
  env: Environment;
  api: ApiClient;
}

export interface Harness {
  url: string;
  store: Store;
  clock: ManualClock;
  dataDir: string;
  embedded: Embedded;
  /** No key. */
  anonymous: ApiClient;
  /** A new org with one key (all scopes unless given). */
  tenant(options?: { plan?: PlanName; env?: Environment; scopes?: Scope[] }): Promise<TestTenant>;
  /** Another key for an existing org. */
  key(orgId: string, options?: { env?: Environment; scopes?: Scope[]; expiresInDays?: number }): Promise<TestTenant>;
  /** Runs an admin command in-process against the same store. */
  admin(...argv: string[]): Promise<Record<string, any>>;
  /** Moves the clock and lets the dispatcher see what became due. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts embedded Wirehook for a test file. Close it in afterAll. */
export async function startWirehook(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'wirehook-test-'));
  const clock = options.realTime ? new WallClock() : new ManualClock(options.startAt ?? Date.now());
  const config = embeddedConfigSchema.parse({
    PORT: '0',
    METRICS_PORT: '0',
    PORTAL_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DELIVERY_ALLOW_HOSTS: options.allowHosts ?? 'localhost',
    ...(options.resolve === undefined ? {} : { DELIVERY_RESOLVE: options.resolve }),
    RETENTION_MONTHS: String(options.retentionMonths ?? 3),
    DELIVERY_TIMEOUT_MS: String(options.deliveryTimeoutMs ?? 2_000),
    ENDPOINT_SLOTS: String(options.endpointSlots ?? 16),
    ...(options.dispatchConcurrency === undefined ? {} : { DISPATCH_CONCURRENCY: String(options.dispatchConcurrency) }),
    SWEEP_INTERVAL_MS: '25',
    ...(options.secretKey === undefined ? {} : { WIREHOOK_SECRET_KEY: options.secretKey }),
    ...(options.relaySourceIps === undefined ? {} : { RELAY_SOURCE_IPS: options.relaySourceIps }),
    ...(options.smtpUrl === undefined ? {} : { SMTP_URL: options.smtpUrl, ALERT_EMAIL_FROM: 'alerts@wirehook.test' }),
  });
  const embedded = createEmbedded(config, { clock, logger: options.logger ?? silentLogger(), lookup: options.lookup, ca: options.ca });
  const started: typeof embedded.components = [];
  for (const c of embedded.components) {
    await c.start();
    started.push(c);
  }
  const url = embedded.apiUrl();
  const store = embedded.store;
  const admin = (...argv: string[]) => runAdminCommand(argv, { store, clock }) as Promise<Record<string, any>>;

  const key: Harness['key'] = async (orgId, opts = {}) => {
    const env = opts.env ?? 'live';
    const args = ['key', 'create', '--org', orgId, '--env', env];
    if (opts.scopes) args.push('--scopes', opts.scopes.join(','));
    if (opts.expiresInDays !== undefined) args.push('--expires-in-days', String(opts.expiresInDays));
    const created = await admin(...args);
    return { orgId, keyId: created['id'], key: created['key'], env, api: new ApiClient(url, created['key']) };
  };

  return {
    url,
    store,
    clock,
    dataDir,
    embedded,
    anonymous: new ApiClient(url),
    admin,
    key,
    async tenant(opts = {}) {
      const org = await admin('org', 'create', '--name', 'Test org', '--plan', opts.plan ?? 'business');
      return key(org['id'], { env: opts.env, scopes: opts.scopes });
    },
    async advance(ms) {
      clock.advance(ms);
      await embedded.dispatcher.sweep();
    },
    async close() {
      for (const c of started.reverse()) await c.stop();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes `count` live messages of `orgId` straight to the store, counted on this month's usage
 * counter as intake counts them: a test reaches a share of a plan's limit in seconds.
 */
export async function fillLiveUsage(wh: Harness, orgId: string, count: number): Promise<void> {
  const { newId } = await import('@wirehook/core');
  const month = new Date(wh.clock.now()).toISOString().slice(0, 7);
  for (let i = 0; i < count; i += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, count - i) }, () =>
        wh.store.messages.create(
          { orgId: orgId as never, env: 'live' },
          {
            id: newId('message', wh.clock),
            eventType: 'a.b',
            payload: '{}',
            createdAt: wh.clock.now(),
            consumerExternalId: 'usage',
            newConsumerId: newId('consumer', wh.clock),
            idempotencyKey: null,
            idempotencySince: 0,
            counters: [{ key: `live:${orgId}:${month}`, limit: null, increment: true, expiresAt: wh.clock.now() + 90 * 86_400_000 }],
          },
        ),
      ),
    );
  }
}

/** A ManualClock that runs: the wall clock plus what `advance` and `set` add. */
class WallClock extends ManualClock {
  #offset = 0;
  override now(): number {
    return Date.now() + this.#offset;
  }
  override advance(ms: number): void {
    this.#offset += ms;
  }
  override set(ms: number): void {
    this.#offset = ms - Date.now();
  }
}
