import { describe, expect, it } from 'vitest';
import { BATCH_HEADER, decodeBatch } from './batch-codec.ts';
import { MAX_WAITING_PUBLISHES, PublishBatcher } from './publish-batcher.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A send that records what it was given and settles when the test says. */
function heldSends() {
  const sends: { data: Uint8Array; headers: Record<string, string>; deadline: number; ok(): void; fail(err: Error): void }[] = [];
  const send = (data: Uint8Array, headers: Record<string, string>, deadline: number) =>
    new Promise<void>((ok, fail) => sends.push({ data, headers, deadline, ok, fail }));
  return { sends, send };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatcher', () => {
  it('sends one message at a time; what is published meanwhile goes together next', async () => {
    const { sends, send } = heldSends();
    const batcher = new PublishBatcher({ subject: 's', timeoutMs: 60_000, send });
    const first = batcher.add(bytes('a'), { traceparent: 'tp-a' });
    await turn();
    expect(sends).toHaveLength(1);
    // A batch of one is a plain message with its own headers.
    expect(text(sends[0]!.data)).toBe('a');
    expect(sends[0]!.headers).toEqual({ traceparent: 'tp-a' });
    const later = [batcher.add(bytes('b'), { traceparent: 'tp-b' }), batcher.add(bytes('c'), {})];
    await turn();
    expect(sends).toHaveLength(1);
    sends[0]!.ok();
    await first;
    await turn();
    await turn();
    expect(sends).toHaveLength(2);
    expect(sends[1]!.headers).toEqual({ [BATCH_HEADER]: '2' });
    expect(decodeBatch(sends[1]!.data).map((m) => [text(m.data), m.headers])).toEqual([
      ['b', { traceparent: 'tp-b' }],
      ['c', {}],
    ]);
    sends[1]!.fail(new Error('no ack'));
    await expect(Promise.all(later)).rejects.toThrow('no ack');
  });

  it('gives up a publish that waited past its time without sending it', async () => {
    const { sends, send } = heldSends();
    const batcher = new PublishBatcher({ subject: 'wirehook.dispatch', timeoutMs: 50, send });
    const first = batcher.add(bytes('a'), {});
    await turn();
    const waiting = batcher.add(bytes('b'), {});
    // Past the waiting one's deadline, the first is answered.
    await new Promise((resolve) => setTimeout(resolve, 100));
    sends[0]!.ok();
    await first;
    await expect(waiting).rejects.toThrow('could not publish to wirehook.dispatch: no acknowledgement from NATS JetStream within 50 ms');
    await turn();
    expect(sends).toHaveLength(1);
  });

  it(`refuses a publish at once when ${MAX_WAITING_PUBLISHES.toLocaleString('en')} wait already`, async () => {
    const { send } = heldSends();
    const batcher = new PublishBatcher({ subject: 's', timeoutMs: 60_000, send });
    void batcher.add(bytes('in flight'), {});
    await turn();
    let refused = 0;
    for (let i = 0; i < MAX_WAITING_PUBLISHES; i++) void batcher.add(bytes(String(i)), {}).catch(() => refused++);
    await turn();
    expect(refused).toBe(0);
    await expect(batcher.add(bytes('one more'), {})).rejects.toThrow('could not publish to s: 10000 publishes already wait for NATS JetStream');
  });
});
