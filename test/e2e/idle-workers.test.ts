// The background workers, wired by their factories as every composition root wires them,
// leave an idle store alone between ticks. Each factory passed its own optional tickMs on
// as `undefined`, which overrode the worker's one-second default: recovery and alerting
// then polled the store about a thousand times a second, half a core of the store thread
// in a bench (found by counting store calls per second).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBus } from '@wirehook/bus';
import { SecretBox, systemClock } from '@wirehook/core';
import { createAlerting } from '@wirehook/alerting';
import { silentLogger } from '@wirehook/platform';
import { createRecovery } from '@wirehook/recovery';
import { openSqliteStore, type Store } from '@wirehook/store';
import { eventually } from '@wirehook/testkit';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real SQLite store whose repo calls are counted. */
function countedStore(): { store: Store; calls: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-idle-'));
  dirs.push(dir);
  const real = openSqliteStore({ path: join(dir, 'wirehook.sqlite') });
  stores.push(real);
  let calls = 0;
  const store = new Proxy(real, {
    get(target, repoName) {
      const repo = Reflect.get(target, repoName) as unknown;
      if (typeof repo !== 'object' || repo === null) return repo;
      return new Proxy(repo, {
        get(r, method) {
          const value = Reflect.get(r, method) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls++;
            return (value as (...a: unknown[]) => unknown).apply(r, args);
          };
        },
      });
    },
  });
  return { store, calls: () => calls };
}

const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('background workers on an idle store', () => {
  it('recovery waits its tick between looks at the store', async () => {
    const { store, calls } = countedStore();
    const { worker } = createRecovery(
      { ENDPOINT_SLOTS: 64, RETENTION_MONTHS: 1 },
      { store, bus: new MemoryBus(), clock: systemClock, logger: silentLogger(), soleWorker: false },
    );
    await worker.start();
    await idleFor(500);
    // One-second ticks: none has come yet (spinning, it was hundreds)…
    expect(calls()).toBe(0);
    // …and the first one does come.
    await eventually(() => expect(calls()).toBeGreaterThan(0), 3_000);
    await worker.stop();
  });

  it('alerting waits its tick between looks at the store', async () => {
    const { store, calls } = countedStore();
    const { worker } = createAlerting(
      { DELIVERY_ALLOW_HOSTS: 'localhost', DELIVERY_RESOLVE: '' },
      { store, clock: systemClock, logger: silentLogger(), secretBox: SecretBox.fromBase64(SecretBox.generateKey()) },
    );
    await worker.start();
    await idleFor(500);
    expect(calls()).toBe(0);
    await eventually(() => expect(calls()).toBeGreaterThan(0), 3_000);
    await worker.stop();
  });
});
