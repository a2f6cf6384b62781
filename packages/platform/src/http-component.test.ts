// An HTTP component's stop against a client that keeps its connection alive: the request in
// flight is answered and its connection closed after it, so the client's next request goes to a
// new connection (another replica) instead of being served here for as long as it keeps sending.
import { Agent, request } from 'node:http';
import { freePort } from '@wirehook/testkit';
import { expect, it } from 'vitest';
import { httpComponent } from './http-component.ts';

type Answer = { status: number; connection: string | undefined } | (Error & { code?: string });

/** One GET over `agent`: its status and Connection header, or the error that ended it. */
function get(port: number, agent: Agent): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', resolve);
    req.end();
  });
}

it('stopping, the response in flight says Connection: close, the next request finds the server gone, and the stop ends', async () => {
  const port = await freePort();
  let received = () => {};
  let answer = () => {};
  let held = false;
  const api = httpComponent(
    'api',
    (_req, res) => {
      // The second request is held until the test lets it go: in flight when the stop begins.
      if (!held) return void res.end('ok');
      answer = () => res.end('ok');
      received();
    },
    { port, host: '127.0.0.1', variable: 'PORT' },
  );
  await api.start();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  expect(await get(port, agent)).toEqual({ status: 200, connection: 'keep-alive' });

  held = true;
  const inFlight = new Promise<void>((resolve) => (received = resolve));
  const second = get(port, agent);
  await inFlight;
  const stopped = api.stop();
  answer();
  expect(await second).toEqual({ status: 200, connection: 'close' });
  // Its connection closed after the answer: the next request is refused, not served here.
  expect(await get(port, agent)).toMatchObject({ code: 'ECONNREFUSED' });
  await stopped;
  expect(api.listening()).toBe(false);
  agent.destroy();
}, 20_000);
