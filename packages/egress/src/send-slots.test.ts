import { describe, expect, it } from 'vitest';
import { SendSlots } from './send-slots.ts';

const signal = () => new AbortController().signal;

describe('SendSlots', () => {
  it('gives each key its slots at once, and the next send of a full key waits', () => {
    const slots = new SendSlots(2);
    expect(slots.take('ep_a', signal())).toBeUndefined();
    expect(slots.take('ep_a', signal())).toBeUndefined();
    expect(slots.take('ep_b', signal())).toBeUndefined();
    expect(slots.take('ep_a', signal())).toBeInstanceOf(Promise);
  });

  it('hands a slot given back to the first waiting, in order', async () => {
    const slots = new SendSlots(1);
    slots.take('ep', signal());
    const order: number[] = [];
    const waits = [1, 2].map((n) => slots.take('ep', signal())!.then(() => order.push(n)));
    slots.give('ep');
    await waits[0];
    expect(order).toEqual([1]);
    slots.give('ep');
    await waits[1];
    expect(order).toEqual([1, 2]);
    slots.give('ep');
    expect(slots.keys).toBe(0);
  });

  it('a wait that aborts leaves the queue with its reason, and the slot goes to the next', async () => {
    const slots = new SendSlots(1);
    slots.take('ep', signal());
    const gone = new AbortController();
    const aborted = slots.take('ep', gone.signal)!;
    const next = slots.take('ep', signal())!;
    gone.abort(new Error('no connection within 15 s'));
    await expect(aborted).rejects.toThrow('no connection within 15 s');
    slots.give('ep');
    await next;
    slots.give('ep');
    expect(slots.keys).toBe(0);
  });

  it('a signal aborted already is refused at once', async () => {
    const slots = new SendSlots(1);
    slots.take('ep', signal());
    const gone = new AbortController();
    gone.abort(new Error('late'));
    await expect(slots.take('ep', gone.signal)).rejects.toThrow('late');
    slots.give('ep');
    expect(slots.keys).toBe(0);
  });
});
