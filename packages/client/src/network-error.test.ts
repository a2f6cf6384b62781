// No usable answer: a refused connection, a timeout (headers or body too slow), a success
// answer that is not JSON. Each is a WirehookNetworkError saying which request and what failed.
// One attempt each here (maxRetries: 0); retries.test.ts retries them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Wirehook } from './client.ts';
import { WirehookApiError, WirehookNetworkError } from './errors.ts';
import { fakeFetch } from './testing/fake-fetch.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPortUrl(): Promise<string> {
  const url = await listen(() => {});
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to throw'),
    (err: unknown) => err,
  );
}

describe('WirehookNetworkError', () => {
  it('a refused connection (real fetch) says which request and why', async () => {
    const base = await closedPortUrl();
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: base, maxRetries: 0 }).messages.send({ consumer: 'a', event_type: 'b', payload: 1 }));
    expect(err).toBeInstanceOf(WirehookNetworkError);
    expect(err).not.toBeInstanceOf(WirehookApiError);
    expect(err).toMatchObject({ name: 'WirehookNetworkError', reason: 'connection', method: 'POST', url: `${base}/v1/messages` });
    expect((err as Error).message).toMatch(new RegExp(`^POST ${base}/v1/messages failed: .*ECONNREFUSED`));
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it("a port fetch refuses (the Fetch standard's bad ports: 10080, 6000) says so, naming the port; its neighbours are plain refusals", async () => {
    for (const port of [10_080, 6_000]) {
      const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 }).eventTypes.list());
      expect(err).toMatchObject({ name: 'WirehookNetworkError', reason: 'connection' });
      expect((err as Error).message).toContain(`(bad port: fetch refuses port ${port}, one of the Fetch standard's blocked ports`);
    }
    const base = await closedPortUrl();
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: base, maxRetries: 0 }).eventTypes.list());
    expect((err as Error).message).not.toContain('bad port');
  });

  it('an injected fetch that rejects is a connection failure with the error as cause', async () => {
    const boom = new TypeError('Failed to fetch');
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: 'http://wh.test', maxRetries: 0, fetch: () => Promise.reject(boom) }).eventTypes.list());
    expect(err).toMatchObject({ reason: 'connection', message: 'GET http://wh.test/v1/event-types failed: Failed to fetch', cause: boom });
  });

  it('no answer within timeoutMs is a timeout', async () => {
    const base = await listen(() => {}); // never answers
    const started = Date.now();
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: base, maxRetries: 0, timeoutMs: 100 }).messages.get('msg_1'));
    expect(err).toMatchObject({ reason: 'timeout', message: `GET ${base}/v1/messages/msg_1 failed: no complete answer within 100 ms (timeoutMs)` });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the timeout covers the body: headers then a stalled body is a timeout too', async () => {
    const base = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":');
    });
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: base, maxRetries: 0, timeoutMs: 150 }).eventTypes.list());
    expect(err).toMatchObject({ reason: 'timeout' });
  });

  it('the timeout is per attempt: an answer in time is not affected', async () => {
    const base = await listen((_req, res) => setTimeout(() => res.end('{"items":[]}'), 50));
    expect(await new Wirehook({ apiKey: 'k', baseUrl: base, maxRetries: 0, timeoutMs: 2_000 }).eventTypes.list()).toEqual({ items: [] });
  });

  it('a success answer that is not JSON is an invalid_response', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>captive portal</html>', { status: 200 }));
    const err = await thrown(new Wirehook({ apiKey: 'k', baseUrl: 'http://wh.test', fetch }).eventTypes.list());
    expect(err).toMatchObject({
      reason: 'invalid_response',
      message: 'GET http://wh.test/v1/event-types failed: answered 200 with a body that is not JSON: <html>captive portal</html>',
    });
  });
});
