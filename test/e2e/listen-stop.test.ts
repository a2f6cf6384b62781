// A stop while a webhook is with a listener (`wirehook listen`): the stop waits for the CLI's
// answer and records it as the attempt, instead of failing the attempt as the connection
// closes and sending the webhook again (its local server may have had it already). A raw
// WebSocket stands in for the CLI, so the test decides when it answers.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@wirehook/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Harness, startWirehook } from '../support/harness.ts';
import { answerFrame, heldAndQuietListeners, listenSocket } from '../support/listen-socket.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'wirehook-listen-stop-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The Wirehook running now, closed after the test if the test did not (a failure midway). */
let running: Harness | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('wirehook listen: Wirehook stopping', () => {
  it('a webhook already with the listener is answered before its connection closes, and recorded as answered: no failed attempt, no second send', async () => {
    // The attempt's limit runs on the real clock: the stop and the answer must come within it.
    const wh = await startWirehook({ dataDir, deliveryTimeoutMs: 20_000 });
    running = wh;
    const t = await wh.tenant({ env: 'test' });
    // A listener holding a webhook, and one of another consumer with nothing waiting (let go at once, to connect elsewhere).
    const { held, quiet, messageId, request } = await heldAndQuietListeners(wh, t);
    // The stop begins while the CLI still holds the webhook: the quiet listener is let go at once
    // (going away), and a new listener is refused (asked for another address: a second
    // connection of this one would take it over).
    running = undefined;
    const stopping = wh.close();
    expect(await quiet.closed).toBe(1001);
    await eventually(async () => {
      const probe = await listenSocket(wh, t.key, 'http://localhost:9/probe').catch((err: Error) => err);
      if (!(probe instanceof Error)) probe.ws.close(1000);
      expect(probe).toBeInstanceOf(Error);
    });
    held.ws.send(answerFrame(request.id));
    await stopping;
    // Closed as going away, after the answer.
    expect(await held.closed).toBe(1001);

    const again = await startWirehook({ dataDir });
    running = again;
    const { api } = await again.key(t.orgId, { env: 'test' });
    const message = (await api.get(`/v1/messages/${messageId}`)).body;
    expect(message.deliveries).toHaveLength(1);
    expect(message.deliveries[0].status).toBe('success');
    const delivery = (await api.get(`/v1/deliveries/${message.deliveries[0].id}`)).body;
    expect(delivery.attempts).toEqual([expect.objectContaining({ via: 'listen', response_status: 200, response_head: 'thanks', error: null })]);
  }, 60_000);

  it('a listener that never answers the close frame (a laptop’s lid shut) is cut, not waited for: the stop ends', async () => {
    const wh = await startWirehook({ dataDir: mkdtempSync(join(tmpdir(), 'wirehook-listen-silent-')) });
    running = wh;
    const t = await wh.tenant({ env: 'test' });
    // The upgrade by hand, then silence: no frame read, no close answered.
    const { port } = new URL(wh.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      [
        `GET /v1/listen?forward_to=${encodeURIComponent('http://localhost:9/silent')} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        `Authorization: Bearer ${t.key}`,
        '',
        '',
      ].join('\r\n'),
    );
    let answer = '';
    await eventually(() => {
      answer += socket.read()?.toString() ?? '';
      expect(answer).toMatch(/^HTTP\/1\.1 101 /);
    });
    // Read and dropped from now on: the close frame comes, and is never answered.
    socket.on('data', () => {});
    // ws waits 30 s for the close to be answered; the stop cuts it after 1 s (this test's own limit is 20 s).
    running = undefined;
    await wh.close();
    await gone;
    rmSync(wh.dataDir, { recursive: true, force: true });
  }, 20_000);
});
