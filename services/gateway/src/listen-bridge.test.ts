import { listenSubject, MemoryBus, NoResponderError } from '@wirehook/bus';
import { type ListenerConnection, ListenHub } from '@wirehook/egress';
import { connectWithRetry, silentLogger } from '@wirehook/platform';
import { decodeSendResult, encodeForwardedSend } from '@wirehook/rpc';
import { describe, expect, it } from 'vitest';
import { ListenBridge } from './listen-bridge.ts';

const clock = { now: () => Date.now() };
const send = (poolKey: string) => encodeForwardedSend({ url: 'http://localhost:3000/hook', poolKey, headers: { 'webhook-id': 'msg_1' }, body: '{"a":1}' });

/** A CLI connection that answers each request frame with `status`. */
function cliConnection(hub: () => ListenBridge, status: number): ListenerConnection & { frames: string[] } {
  const frames: string[] = [];
  const connection = {
    frames,
    send(frame: string) {
      frames.push(frame);
      const { id } = JSON.parse(frame) as { id: string };
      queueMicrotask(() => hub().answer(connection, { type: 'response', id, status, body: 'ok', duration_ms: 3 }));
    },
  };
  return connection;
}

describe('ListenBridge (the gateway side of `wirehook listen` in cluster mode)', () => {
  it('stopped while NATS is still unreachable: its background connect stops retrying (its wait held a stopped gateway to its deadline)', async () => {
    let connecting: Promise<unknown> | undefined;
    const bridge = new ListenBridge({
      hub: new ListenHub({ clock, timeoutMs: 1_000 }),
      // NATS refusing, a minute between attempts: only the stop can end the wait.
      connect: (signal) =>
        (connecting = connectWithRetry('NATS', async () => Promise.reject(new Error('ECONNREFUSED')), silentLogger(), { backoffMs: [60_000], signal })),
      logger: silentLogger(),
    });
    await bridge.start();
    await bridge.stop();
    await expect(connecting).rejects.toThrow('the gateway is stopping');
    expect(bridge.unavailable()).toMatch(/needs NATS/);
  });

  it('is unavailable (listen answers 503) until NATS is reached, then serves each attached listener on its subject', async () => {
    const bus = new MemoryBus();
    let connect: (b: MemoryBus) => void = () => {};
    const bridge: ListenBridge = new ListenBridge({
      hub: new ListenHub({ clock, timeoutMs: 1_000 }),
      connect: () => new Promise((resolve) => (connect = resolve)),
      logger: silentLogger(),
    });
    await bridge.start();
    expect(bridge.unavailable()).toMatch(/needs NATS/);
    connect(bus);
    await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.unavailable()).toBeNull();

    const cli = cliConnection(() => bridge, 204);
    bridge.attach('ep_a', cli);
    const result = decodeSendResult(await bus.request(listenSubject('ep_a'), send('ep_other'), 2_000));
    expect(result).toMatchObject({ ok: true, status: 204, responseHead: 'ok', error: null });
    // Sent to ep_a's connection, whatever key the payload named.
    expect(cli.frames).toHaveLength(1);
    expect(JSON.parse(cli.frames[0]!)).toMatchObject({ type: 'request', headers: { 'webhook-id': 'msg_1' }, body: '{"a":1}' });

    // Another gateway's janitor asks whether ep_a is held: yes, without a frame to the CLI.
    const other = new ListenBridge({ hub: new ListenHub({ clock, timeoutMs: 1_000 }), connect: async () => bus, logger: silentLogger() });
    await other.start();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await other.servedElsewhere('ep_a')).toBe(true);
    expect(await other.servedElsewhere('ep_nobody')).toBe(false);
    expect(cli.frames).toHaveLength(1);

    // A reconnect replaces the connection and keeps serving; the old one's close does not stop it.
    const again = cliConnection(() => bridge, 200);
    bridge.attach('ep_a', again);
    bridge.detach('ep_a', cli);
    expect(decodeSendResult(await bus.request(listenSubject('ep_a'), send('ep_a'), 2_000)).status).toBe(200);
    // Its last connection gone: nobody serves it (the dispatcher records `connection` at once).
    bridge.detach('ep_a', again);
    await expect(bus.request(listenSubject('ep_a'), send('ep_a'), 2_000)).rejects.toBeInstanceOf(NoResponderError);
    expect(await other.servedElsewhere('ep_a')).toBe(false);
    await bridge.stop();
  });
});
