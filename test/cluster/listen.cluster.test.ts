import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { eventually } from '@wirehook/testkit';
import { describeListenSuite } from '../e2e/listen.test-suite.ts';
import { startClusterHarness } from '../support/cluster-harness.ts';
import { answerFrame, heldAndQuietListeners } from '../support/listen-socket.ts';

/** The status a `GET /v1/listen` upgrade is answered with (101 when taken; the socket is then dropped). */
function upgradeStatus(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/listen?forward_to=${encodeURIComponent('http://localhost:9/late')}`, {
      headers: {
        authorization: `Bearer ${key}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'sec-websocket-version': '13',
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

// The CLI's WebSocket on the gateway process; the sends from a dispatcher process, over NATS.
describeListenSuite(
  'cluster, separate processes',
  () => startClusterHarness(),
  (harness) => {
    // Last in the file: it stops and starts the gateway the suite's tests use.
    it('a gateway stopped (SIGTERM) while a listener holds a webhook: the listener answers, the dispatcher records it, no second send', async () => {
      const h = harness();
      const t = await h.tenant({ env: 'test' });
      const { held, quiet, messageId, request } = await heldAndQuietListeners(h, t);

      const stopped = h.cluster.kill('gateway', 'SIGTERM');
      // The listeners stop first: the quiet one is let go at once (going away), a new one is
      // refused with 503 (its CLI connects again, to another pod), and the API still answers —
      // its own drain comes after the listeners'.
      expect(await quiet.closed).toBe(1001);
      expect(await upgradeStatus(h.url, t.key)).toBe(503);
      expect((await t.api.get('/v1/event-types')).status).toBe(200);
      held.ws.send(answerFrame(request.id));
      await stopped;
      expect(await held.closed).toBe(1001);

      await h.cluster.restart('gateway');
      // The dispatcher records the answer as it comes back over NATS, maybe just after the gateway has gone.
      const message = await eventually(async () => {
        const body = (await t.api.get(`/v1/messages/${messageId}`)).body;
        expect(body.deliveries).toHaveLength(1);
        expect(body.deliveries[0].status).toBe('success');
        return body;
      });
      const delivery = (await t.api.get(`/v1/deliveries/${message.deliveries[0].id}`)).body;
      expect(delivery.attempts).toEqual([expect.objectContaining({ via: 'listen', response_status: 200, response_head: 'thanks', error: null })]);
    }, 90_000);
  },
);
