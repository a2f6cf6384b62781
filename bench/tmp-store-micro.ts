import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, newId, type Tenant } from '@wirehook/core';
import { openSqliteStore } from '@wirehook/store';

const dir = mkdtempSync(join(tmpdir(), 'micro-'));
const store = openSqliteStore({ path: join(dir, 'db.sqlite') });
const clock = new ManualClock(Date.now());
const orgId = newId('org', clock);
await store.orgs.create({ id: orgId, name: 'x', plan: 'business', ownerEmail: null, createdAt: clock.now() });
const t: Tenant = { orgId, env: 'live' };
const consumers: string[] = [];
for (let i = 0; i < 64; i++) {
  const c = await store.consumers.create(t, { id: newId('consumer', clock), externalId: `c${i}`, name: null, createdAt: clock.now() });
  await store.endpoints.create(t, { id: newId('endpoint', clock), consumerId: c.id, url: 'https://x.example/', description: null, eventTypes: null, fixedIp: false, status: 'active', disabledReason: null, failingSince: null, createdAt: clock.now(), retry: { count: 7, interval: 'progressive' }, compatSignature: null } as any, { sealed: 'v1.a.b.c', createdAt: clock.now(), expiresAt: null }, 20);
  consumers.push(`c${i}`);
}
const payload = JSON.stringify({ kind: 'bench', pad: 'x'.repeat(1000) });
const N = 20000, B = 32;
const phase = { create: 0, claim: 0, complete: 0 };
for (let i = 0; i < N; i += B) {
  let t0 = performance.now();
  const created = await Promise.all(Array.from({ length: B }, (_, j) => store.messages.create(t, {
    id: newId('message', clock), eventType: 'e', payload, createdAt: clock.now(), consumerExternalId: consumers[(i + j) % 64]!, newConsumerId: newId('consumer', clock), idempotencyKey: null, idempotencySince: 0, newDeliveryId: () => newId('delivery', clock),
    counters: [{ key: 'live:x', limit: null, increment: true, expiresAt: clock.now() + 1e9 }],
  })));
  phase.create += performance.now() - t0; t0 = performance.now();
  const jobs = await Promise.all(created.map((c) => store.deliveries.claim(c.deliveryIds[0]!, clock.now(), clock.now() + 30000)));
  phase.claim += performance.now() - t0; t0 = performance.now();
  await Promise.all(jobs.map((job) => store.deliveries.complete(job!, { attempt: { id: newId('attempt', clock), endpointId: job!.endpoint.id, at: clock.now(), responseStatus: 200, responseHead: '', durationMs: 1, error: null, via: 'direct', sourceIp: '127.0.0.1' } as any, status: 'success', nextAttemptAt: null, countsTowardPolicy: true, endpoint: { succeeded: true } })));
  phase.complete += performance.now() - t0;
}
for (const [k, v] of Object.entries(phase)) console.log(k, (v * 1000 / N).toFixed(1), 'µs per op (wall, incl. fsync wait)');
const cpu = process.cpuUsage(); console.log('cpu µs per message', ((cpu.user + cpu.system) / N).toFixed(1));
