import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRegistry, metricsServer } from './metrics.ts';
import { checkReadiness, type ReadinessCheck } from './readiness.ts';

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
      { name: 'store', gates: true, probe: async () => (storeUp ? undefined : Promise.reject(new Error('SQLITE_CANTOPEN'))) },
      { name: 'nats', gates: true, probe: async () => undefined },
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

  it('a failing check that does not gate keeps the pod ready, named in the body and at 0 in wirehook_readiness_check_up', async () => {
    let redisUp = false;
    const { base, stop } = await serve([
      { name: 'store', gates: true, probe: async () => undefined },
      { name: 'redis', gates: false, probe: async () => (redisUp ? undefined : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'))) },
    ]);
    const gauge = async () => (await (await fetch(`${base}/metrics`)).text()).split('\n').filter((line) => line.startsWith('wirehook_readiness_check_up{'));
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', checks: { store: 'ok', redis: 'connect ECONNREFUSED 127.0.0.1:6379' } });
      expect(await gauge()).toEqual([
        'wirehook_readiness_check_up{check="store",gates="true",service="test"} 1',
        'wirehook_readiness_check_up{check="redis",gates="false",service="test"} 0',
      ]);
      redisUp = true;
      await fetch(`${base}/readyz`);
      expect(await gauge()).toContain('wirehook_readiness_check_up{check="redis",gates="false",service="test"} 1');
    } finally {
      await stop();
    }
  });

  it('checkReadiness: ready when every gating check answers, whatever the others say; each named', async () => {
    const down = async () => Promise.reject(new Error('down'));
    const up = async () => undefined;
    expect(
      await checkReadiness([
        { name: 'store', gates: true, probe: up },
        { name: 'nats', gates: false, probe: down },
      ]),
    ).toEqual({
      ready: true,
      checks: { store: 'ok', nats: 'down' },
    });
    expect(
      await checkReadiness([
        { name: 'store', gates: true, probe: down },
        { name: 'nats', gates: false, probe: up },
      ]),
    ).toEqual({
      ready: false,
      checks: { store: 'down', nats: 'ok' },
    });
    expect(await checkReadiness([{ name: 'redis', gates: false, probe: () => new Promise(() => {}) }], 50)).toEqual({
      ready: true,
      checks: { redis: 'no answer within 50 ms' },
    });
  });

  it('a dependency that hangs is not ready after a second, named', async () => {
    const { base, stop } = await serve([{ name: 'nats', gates: true, probe: () => new Promise(() => {}) }]);
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
