// An HTTP component's stop against a client that keeps its connection alive: the request in
// flight is answered and its connection closed after it, so the client's next request goes to a
// new connection (another replica) instead of being served here for as long as it keeps sending.
import { Agent, request, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
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

/** A raw connection to `port`: what it has read so far, and its end. */
function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, read: () => data, closed };
}

/** A component whose GET /stream sends its headers and a first part, and waits for the test to end it. */
async function streamingApi() {
  const port = await freePort();
  let streaming: ServerResponse | undefined;
  const seen: string[] = [];
  const api = httpComponent(
    'api',
    (req, res) => {
      seen.push(req.url ?? '');
      if (req.url !== '/stream') return void res.end('ok');
      res.writeHead(200, { 'content-type': 'text/plain' }).write('part ');
      streaming = res;
    },
    { port, host: '127.0.0.1', variable: 'PORT' },
  );
  await api.start();
  return { api, port, seen, end: () => streaming!.end('rest') };
}

it('stopping while a response streams (headers sent): a request pipelined behind it is answered with Connection: close, then the connection ends', async () => {
  const { api, port, seen, end } = await streamingApi();
  const conn = rawConnection(port);
  conn.socket.write('GET /stream HTTP/1.1\r\nHost: wirehook\r\n\r\n');
  await expect.poll(() => conn.read()).toContain('part ');
  const stopped = api.stop();
  conn.socket.write('GET /next HTTP/1.1\r\nHost: wirehook\r\n\r\n');
  // Its handler runs at once; its answer waits behind the stream's.
  await expect.poll(() => seen).toEqual(['/stream', '/next']);
  end();
  await conn.closed;
  await stopped;
  const answers = conn.read().split('HTTP/1.1 ').slice(1);
  expect(answers).toHaveLength(2);
  // The first kept alive (its headers went before the stop), the second told to close.
  expect(answers[0]).toMatch(/^200 OK\r\n(.*\r\n)*connection: keep-alive\r\n/i);
  expect(answers[1]).toMatch(/^200 OK\r\n(.*\r\n)*connection: close\r\n/i);
});

// Node closes an idle kept-alive connection itself after 5 s (its keepAliveTimeout): this test's limit, 3 s, tells
// that apart from the stop's closing it as it falls idle (every 100 ms).
it('stopping while a response streams: once it ends, its connection, idle, is closed and the stop ends', { timeout: 3_000 }, async () => {
  const { api, port, end } = await streamingApi();
  const conn = rawConnection(port);
  conn.socket.write('GET /stream HTTP/1.1\r\nHost: wirehook\r\n\r\n');
  await expect.poll(() => conn.read()).toContain('part ');
  const stopped = api.stop();
  end();
  await conn.closed;
  await stopped;
  expect(conn.read()).toMatch(/connection: keep-alive\r\n(.*\r\n)*\r\n.*part .*rest/is);
});
