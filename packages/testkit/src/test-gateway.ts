import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '@wirehook/admin';
import { ManualClock, SecretBox, type Environment, type PlanName, type Scope } from '@wirehook/core';
import { AddressPolicy, systemLookup, type LookupFn } from '@wirehook/egress';
import { createApp } from '@wirehook/gateway';
import { MemoryKv, RateLimiter } from '@wirehook/kv';
import { createHttpMetrics, silentLogger } from '@wirehook/platform';
import { openEmbeddedStore, type Store } from '@wirehook/store';
import { ApiClient } from './api-client.ts';

export interface TestGatewayOptions {
  /** DELIVERY_ALLOW_HOSTS; default "localhost". */
  allowHosts?: string;
  lookup?: LookupFn;
  retentionMonths?: number;
}

/** A tenant made through the admin commands, with a client holding its key. */
export interface TestTenant {
  orgId: string;
  keyId: string;
  key: string;
  api: ApiClient;
}

/** The gateway on an ephemeral loopback port over a fresh SQLite store, with a ManualClock. */
export interface TestGateway {
  url: string;
  store: Store;
  clock: ManualClock;
  dataDir: string;
  /** No key. */
  anonymous: ApiClient;
  /** An org with one key (all scopes unless given). */
  tenant(options?: { plan?: PlanName; env?: Environment; scopes?: Scope[] }): Promise<TestTenant>;
  /** Another key for an existing org. */
  key(orgId: string, options?: { env?: Environment; scopes?: Scope[]; expiresInDays?: number }): Promise<TestTenant>;
  /** Runs an admin command in-process against the same store. */
  admin(...argv: string[]): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/** Starts a TestGateway. Close it in afterAll. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-gw-'));
  const store = openEmbeddedStore(dataDir);
  const clock = new ManualClock(Date.now());
  const kv = new MemoryKv({ clock });
  const app = createApp({
    store,
    rateLimiter: new RateLimiter({ kv, clock }),
    clock,
    logger: silentLogger(),
    metrics: createHttpMetrics(),
    secretBox: new SecretBox(Buffer.alloc(32, 7)),
    addressPolicy: new AddressPolicy({ allowHosts: options.allowHosts ?? 'localhost' }),
    lookup: options.lookup ?? systemLookup,
    retentionMonths: options.retentionMonths ?? 3,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = (...argv: string[]) => runAdminCommand(argv, { store, clock }) as Promise<Record<string, any>>;

  const key: TestGateway['key'] = async (orgId, opts = {}) => {
    const args = ['key', 'create', '--org', orgId, '--env', opts.env ?? 'live'];
    if (opts.scopes) args.push('--scopes', opts.scopes.join(','));
    if (opts.expiresInDays !== undefined) args.push('--expires-in-days', String(opts.expiresInDays));
    const created = await admin(...args);
    return { orgId, keyId: created['id'], key: created['key'], api: new ApiClient(url, created['key']) };
  };

  return {
    url,
    store,
    clock,
    dataDir,
    anonymous: new ApiClient(url),
    admin,
    key,
    async tenant(opts = {}) {
      const org = await admin('org', 'create', '--name', 'Test org', '--plan', opts.plan ?? 'business');
      return key(org['id'], { env: opts.env, scopes: opts.scopes });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      kv.stop();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
