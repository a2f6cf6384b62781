import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRegistry, metricsServer } from './metrics.ts';
import type { ReadinessCheck } from './readiness.ts';

async function serve(checks: ReadinessCheck[]) {
  const server = metricsServer(createRegistry('test'), 0, '127.0.0.1', checks);
  await server.start();
  const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return { base, stop: () => server.stop() };
}

describe('/livez and /readyz', () => {
  it('live while the process serves; ready only when every dependency answers, each named', async () => {
    let storeUp = true;
    const { base, stop } = await serve([
      { name: 'store', probe: async () => (storeUp ? undefined : Promise.reject(new Error('SQLITE_CANTOPEN'))) },
      { name: 'nats', probe: async () => undefined },
    ]);
    try {
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', nats: 'ok' } });

      storeUp = false;
      const notReady = await fetch(`${base}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not ready', checks: { store: 'SQLITE_CANTOPEN', nats: 'ok' } });
      expect((await fetch(`${base}/livez`)).status).toBe(200); // alive, only not ready
    } finally {
      await stop();
    }
  });

  it('a dependency that hangs is not ready after a second, named', async () => {
    const { base, stop } = await serve([{ name: 'nats', probe: () => new Promise(() => {}) }]);
    try {
      const started = performance.now();
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'not ready', checks: { nats: 'no answer within 1000 ms' } });
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      await stop();
    }
  });
});

describe('redactUrl', () => {
  it('leaves credentials out of a URL for the log', async () => {
    const { redactUrl } = await import('./connect-retry.ts');
    expect(redactUrl('nats://user:s3cret@nats:4222')).toBe('nats://nats:4222');
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(redactUrl('::nonsense')).toBe('(unparsable URL)');
  });
});
