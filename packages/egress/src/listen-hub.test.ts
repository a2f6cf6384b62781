import { ManualClock } from '@wirehook/core';
import { describe, expect, it, vi } from 'vitest';
import { type ListenRequestFrame, ListenHub } from './listen-hub.ts';

function scene() {
  const clock = new ManualClock(1_000_000);
  const hub = new ListenHub({ clock, timeoutMs: 60_000 });
  const sent: ListenRequestFrame[] = [];
  const connection = { send: (frame: string) => void sent.push(JSON.parse(frame) as ListenRequestFrame) };
  hub.attach('ep_1', connection);
  return { clock, hub, sent, connection };
}

const request = { poolKey: 'ep_1', headers: { 'webhook-id': 'msg_1' }, body: '{"type":"invoice.paid"}' };

describe('ListenHub', () => {
  it('sends the signed request over the connection and reads the answer as an attempt, its body capped', async () => {
    const { clock, hub, sent, connection } = scene();
    const result = hub.send(request);
    // With the attempt's time limit, which the CLI gives its local server.
    expect(sent).toEqual([{ type: 'request', id: expect.any(String), headers: request.headers, body: request.body, timeout_ms: 60_000 }]);
    clock.advance(12);
    hub.answer(connection, { type: 'response', id: sent[0]!.id, status: 503, headers: { 'retry-after': '5' }, body: 'x'.repeat(5_000) });
    expect(await result).toEqual({
      ok: false,
      status: 503,
      responseHead: 'x'.repeat(1024),
      error: 'http_status: 503',
      durationMs: 12,
      sourceIp: null,
      retryAfter: '5',
    });
  });

  it('fails as connection with no listener connected, or when its connection goes while it waits', async () => {
    const { hub, connection } = scene();
    expect((await hub.send({ ...request, poolKey: 'ep_2' })).error).toMatch(/^connection: /);
    const waiting = hub.send(request);
    hub.detach('ep_1', connection);
    expect((await waiting).error).toMatch(/^connection: /);
    expect(hub.connected('ep_1')).toBe(false);
  });

  it('keeps a reported failure’s kind, and reads any other as connection', async () => {
    const { hub, sent, connection } = scene();
    const timedOut = hub.send(request);
    hub.answer(connection, { type: 'response', id: sent[0]!.id, error: 'timeout: no response within 15 s' });
    expect((await timedOut).error).toBe('timeout: no response within 15 s');
    const other = hub.send(request);
    hub.answer(connection, { type: 'response', id: sent[1]!.id, error: 'http_status: 200' });
    expect((await other).error).toBe('connection: http_status: 200');
  });

  describe('a stop: drain, then close', () => {
    it('a webhook already with the listener keeps its connection and is recorded as answered; one sent after is refused unsent', async () => {
      const { hub, sent, connection } = scene();
      const inFlight = hub.send(request);
      let drained = false;
      const draining = hub.drain().then(() => (drained = true));
      const late = await hub.send(request);
      expect(late).toMatchObject({ ok: false, status: null, error: 'connection: Wirehook is stopping here; `wirehook listen` reconnects' });
      // Only the first went out.
      expect(sent).toHaveLength(1);
      await Promise.resolve();
      expect(drained).toBe(false);
      hub.answer(connection, { type: 'response', id: sent[0]!.id, status: 200, body: 'ok' });
      expect(await inFlight).toMatchObject({ ok: true, status: 200, responseHead: 'ok', error: null });
      await draining;
      expect(drained).toBe(true);
    });

    it('waits at most its bound; what is still unanswered then fails as the close fails it', async () => {
      vi.useFakeTimers();
      try {
        const { hub } = scene();
        const unanswered = hub.send(request);
        let drained = false;
        const draining = hub.drain(10_000).then(() => (drained = true));
        await vi.advanceTimersByTimeAsync(9_999);
        expect(drained).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        await draining;
        hub.close();
        expect((await unanswered).error).toBe('connection: Wirehook stopped before the listener answered');
      } finally {
        vi.useRealTimers();
      }
    });

    it('releases each connection once nothing waits on it: a quiet one at once, a busy one at its last answer; a second drain is the first', async () => {
      const { hub, sent, connection } = scene();
      const quiet = { send: () => {} };
      hub.attach('ep_2', quiet);
      const first = hub.send(request);
      const second = hub.send(request);
      const released: unknown[] = [];
      const draining = hub.drain(60_000, (c) => released.push(c));
      expect(released).toEqual([quiet]);
      expect(hub.drain()).toBe(draining);
      hub.answer(connection, { type: 'response', id: sent[0]!.id, status: 200 });
      await first;
      expect(released).toEqual([quiet]);
      hub.answer(connection, { type: 'response', id: sent[1]!.id, status: 200 });
      await second;
      expect(released).toEqual([quiet, connection]);
      await draining;
    });

    it('with nothing in flight it ends at once, and refuses what comes after', async () => {
      const { hub, sent } = scene();
      await hub.drain();
      expect((await hub.send(request)).error).toBe('connection: Wirehook is stopping here; `wirehook listen` reconnects');
      expect(sent).toEqual([]);
    });
  });
});
