import { thousands } from '@wirehook/core';
import { describe, expect, it, vi } from 'vitest';
import { BATCH_HEADER, decodeBatch } from './batch-codec.ts';
import { MAX_BATCH_MESSAGES, MAX_IN_FLIGHT, MAX_WAITING_PUBLISHES, PublishBatcher, PublishQueueFullError, SLOW_ACK_MS } from './publish-batcher.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A send that records what it was given and settles when the test says. */
function heldSends() {
  const sends: { data: Uint8Array; headers: Record<string, string>; deadline: number; at: number; ok(): void; fail(err: Error): void }[] = [];
  const send = (data: Uint8Array, headers: Record<string, string>, deadline: number) =>
    new Promise<void>((ok, fail) => sends.push({ data, headers, deadline, at: performance.now(), ok, fail }));
  /** What each send carried: a plain message's payload, or a batch's payloads. */
  const carried = () => sends.map((s) => (s.headers[BATCH_HEADER] ? decodeBatch(s.data).map((m) => text(m.data)) : [text(s.data)]));
  return { sends, send, carried };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A batcher with MAX_IN_FLIGHT sends out, one publish each, none answered (each next one goes once the oldest is slow).
 * `before`: the time just before the first publish, so before the first send's own clock reading.
 */
async function full(timeoutMs = 60_000) {
  const held = heldSends();
  const batcher = new PublishBatcher({ subject: 'wirehook.dispatch', timeoutMs, send: held.send });
  const inFlight = [];
  const before = performance.now();
  for (let i = 0; i < MAX_IN_FLIGHT; i++) {
    inFlight.push(batcher.add(bytes(`f${i}`), {}));
    await vi.waitFor(() => expect(held.sends).toHaveLength(i + 1), { timeout: 5_000, interval: 5 });
  }
  return { ...held, batcher, inFlight, before };
}

describe('PublishBatcher', () => {
  it('sends the publishes of one turn as one message; a lone one as a plain message with its own headers', async () => {
    const { sends, send, carried } = heldSends();
    const batcher = new PublishBatcher({ subject: 's', timeoutMs: 60_000, send });
    const pair = [batcher.add(bytes('a'), { traceparent: 'tp-a' }), batcher.add(bytes('b'), {})];
    await turn();
    expect(sends[0]!.headers).toEqual({ [BATCH_HEADER]: '2' });
    expect(decodeBatch(sends[0]!.data).map((m) => m.headers)).toEqual([{ traceparent: 'tp-a' }, {}]);
    sends[0]!.ok();
    await Promise.all(pair);
    const lone = batcher.add(bytes('c'), { traceparent: 'tp-c' });
    await turn();
    expect(carried()).toEqual([['a', 'b'], ['c']]);
    expect(sends[1]!.headers).toEqual({ traceparent: 'tp-c' });
    sends[1]!.fail(new Error('bus is closed'));
    await expect(lone).rejects.toThrow('bus is closed');
  });

  it('while one message awaits its ack, what is published meanwhile waits and goes together in the next', async () => {
    const { sends, send, carried } = heldSends();
    const batcher = new PublishBatcher({ subject: 's', timeoutMs: 60_000, send });
    const first = batcher.add(bytes('a'), {});
    await turn();
    const waiting = [batcher.add(bytes('b'), {})];
    await turn();
    waiting.push(batcher.add(bytes('c'), {}));
    await turn();
    expect(sends).toHaveLength(1);
    sends[0]!.ok();
    await first;
    await turn();
    await turn();
    expect(carried()).toEqual([['a'], ['b', 'c']]);
    sends[1]!.ok();
    await Promise.all(waiting);
  });

  it(`an ack slower than ${SLOW_ACK_MS} ms lets the next message go beside it, up to ${MAX_IN_FLIGHT} in flight`, async () => {
    const { sends, carried, batcher, before } = await full();
    expect(carried()).toEqual([['f0'], ['f1'], ['f2'], ['f3']]);
    // The second went only once the first had waited SLOW_ACK_MS for its ack: measured from before the first
    // was published (the send's own reading comes between; the test's reading inside the first send may come
    // late — a busy machine once put 4.4 ms between the two — and was a bound that broke).
    expect(sends[1]!.at - before).toBeGreaterThanOrEqual(SLOW_ACK_MS);
    // However slow the oldest has been (the monotonic clock moved on, not slept through), a fifth does not go.
    const later = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 100 * SLOW_ACK_MS);
    try {
      void batcher.add(bytes('fifth'), {}).catch(() => undefined);
      await turn();
      await turn();
      expect(sends).toHaveLength(MAX_IN_FLIGHT);
    } finally {
      later.mockRestore();
    }
  });

  it(`a full batch (${MAX_BATCH_MESSAGES}) goes at once beside the message in flight`, async () => {
    const { send, carried } = heldSends();
    const batcher = new PublishBatcher({ subject: 's', timeoutMs: 60_000, send });
    void batcher.add(bytes('a'), {});
    await turn();
    for (let i = 0; i < MAX_BATCH_MESSAGES + 1; i++) void batcher.add(bytes(`b${i}`), {});
    await turn();
    expect(carried().map((c) => c.length)).toEqual([1, MAX_BATCH_MESSAGES]);
  });

  it(`with ${MAX_IN_FLIGHT} messages out, what is published meanwhile waits and goes together in the next`, async () => {
    const { sends, carried, batcher } = await full();
    const waiting = [batcher.add(bytes('x'), {})];
    await turn();
    waiting.push(batcher.add(bytes('y'), {}));
    await turn();
    expect(sends).toHaveLength(MAX_IN_FLIGHT);
    sends[0]!.ok();
    // Beside the three still out once the oldest of them is slow.
    await vi.waitFor(() => expect(carried().slice(MAX_IN_FLIGHT)).toEqual([['x', 'y']]), { timeout: 5_000, interval: 5 });
    sends[MAX_IN_FLIGHT]!.ok();
    await Promise.all(waiting);
  });

  it('a message failed at its deadline puts back the publishes with time left; one failed before it fails them all', async () => {
    // The wall clock (publishes' deadlines) moved by the test, not slept through: 60 s each, the younger 30 s after the older.
    const { sends, carried, batcher } = await full(60_000);
    const t0 = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(t0);
    try {
      const older = batcher.add(bytes('older'), {});
      clock.mockReturnValue(t0 + 30_000);
      const younger = batcher.add(bytes('younger'), {});
      sends[0]!.ok();
      await vi.waitFor(() => expect(sends).toHaveLength(MAX_IN_FLIGHT + 1), { timeout: 5_000, interval: 5 });
      const batch = sends[MAX_IN_FLIGHT]!;
      expect(carried()[MAX_IN_FLIGHT]).toEqual(['older', 'younger']);
      // The send's deadline is the older one's; at it, the send fails.
      expect(batch.deadline).toBe(t0 + 60_000);
      clock.mockReturnValue(t0 + 60_000);
      batch.fail(new Error('no acknowledgement'));
      await expect(older).rejects.toThrow('no acknowledgement');
      await turn();
      await turn();
      expect(carried()[MAX_IN_FLIGHT + 1]).toEqual(['younger']);
      // Failed before its deadline (the bus closed): no time left helps.
      sends[MAX_IN_FLIGHT + 1]!.fail(new Error('bus is closed'));
      await expect(younger).rejects.toThrow('bus is closed');
      await turn();
      expect(sends).toHaveLength(MAX_IN_FLIGHT + 2);
    } finally {
      clock.mockRestore();
    }
  });

  it('gives up a publish that waited past its time without sending it', async () => {
    // The time passes by the clock, not by sleeping: a 50 ms timeout and a 100 ms sleep had failed under a loaded CI,
    // the in-flight publishes themselves expiring before their sends went out.
    const { sends, batcher } = await full(60_000);
    const waiting = batcher.add(bytes('late'), {});
    await turn();
    const past = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 60_001);
    try {
      sends[0]!.ok();
      await expect(waiting).rejects.toThrow('could not publish to wirehook.dispatch: no acknowledgement from NATS JetStream within 60000 ms');
    } finally {
      past.mockRestore();
    }
    await turn();
    expect(sends).toHaveLength(MAX_IN_FLIGHT);
  });

  it(`refuses a publish at once when ${thousands(MAX_WAITING_PUBLISHES)} wait already`, async () => {
    const { batcher } = await full();
    let refused = 0;
    for (let i = 0; i < MAX_WAITING_PUBLISHES; i++) void batcher.add(bytes(String(i)), {}).catch(() => refused++);
    await turn();
    expect(refused).toBe(0);
    const oneMore = batcher.add(bytes('one more'), {});
    await expect(oneMore).rejects.toThrow(PublishQueueFullError);
    await expect(oneMore).rejects.toThrow('could not publish to wirehook.dispatch: 10000 publishes already wait for NATS JetStream');
  });

  it('drained() resolves once every publish is settled', async () => {
    const { sends, batcher, inFlight } = await full();
    let drained = false;
    void batcher.drained().then(() => (drained = true));
    for (const s of sends.slice(0, -1)) s.ok();
    await turn();
    expect(drained).toBe(false);
    sends.at(-1)!.ok();
    await Promise.all(inFlight);
    await turn();
    expect(drained).toBe(true);
  });
});
