import { listenSubject, MemoryBus } from '@wirehook/bus';
import { decodeForwardedSend, encodeSendResult } from '@wirehook/rpc';
import { describe, expect, it } from 'vitest';
import { ListenOverBus } from './listen-over-bus.ts';

const request = { url: 'http://localhost:3000/hook', poolKey: 'ep_l', headers: { 'webhook-id': 'msg_1' }, body: '{}' };

describe('ListenOverBus (the dispatcher side of `wirehook listen` in cluster mode)', () => {
  it('returns what the gateway holding the listener answered', async () => {
    const bus = new MemoryBus();
    bus.serve(listenSubject('ep_l'), async (data) => {
      expect(decodeForwardedSend(data)).toEqual(request);
      return encodeSendResult({ ok: false, status: 503, responseHead: 'busy', error: 'http: 503', durationMs: 12, sourceIp: null, retryAfter: '7' });
    });
    expect(await new ListenOverBus(bus, 1_000).send(request)).toEqual({
      ok: false,
      status: 503,
      responseHead: 'busy',
      error: 'http: 503',
      durationMs: 12,
      sourceIp: null,
      retryAfter: '7',
    });
  });

  it('no gateway holds the listener: a connection error at once', async () => {
    const result = await new ListenOverBus(new MemoryBus(), 1_000).send(request);
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection: no `wirehook listen` is connected for this listener endpoint' });
  });

  it('a gateway that never answers: a timeout once the attempt’s time and the margin for its answer are past', async () => {
    const bus = new MemoryBus();
    bus.serve(listenSubject('ep_l'), () => new Promise(() => {}));
    const result = await new ListenOverBus(bus, 100).send(request);
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout: no response within 0.1 s' });
    expect(result.durationMs).toBeGreaterThanOrEqual(2_000);
  });
});
