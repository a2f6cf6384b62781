// SendGate: an endpoint's slots, the deliveries waiting for them in arrival order, turns handed
// on as sends end, hand-offs that never overtake, and the refill asked for once a full queue is half drained.
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import type { DeliveryId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { SendGate, type GateEntry } from './send-gate.ts';

const entry = (n: number, endpointId = 'ep_a'): GateEntry => ({ id: `dlv_${n}` as DeliveryId, endpointId });
const wakeUpTrace = () => ROOT_CONTEXT.setValue(createContextKey('wake-up'), true);

describe('SendGate', () => {
  it('lets in at most its slots per endpoint; a send that ends frees one; other endpoints have their own', () => {
    const gate = new SendGate(2);
    expect([gate.tryEnter(entry(1), false), gate.tryEnter(entry(2), false), gate.tryEnter(entry(3), false)]).toEqual([true, true, false]);
    expect(gate.tryEnter(entry(4, 'ep_b'), false)).toBe(true);
    gate.ended(entry(1));
    expect(gate.tryEnter(entry(3), false)).toBe(true);
  });

  it('parks 4 per slot of an endpoint, no more; a sweep may fetch slots and parking of one endpoint', () => {
    const gate = new SendGate(2);
    expect(gate.perEndpoint).toBe(2 + 8);
    for (let i = 1; i <= 8; i++) expect(gate.wait(entry(i), ROOT_CONTEXT)).toBe(true);
    expect(gate.wait(entry(9), ROOT_CONTEXT)).toBe(false);
    expect(gate.wait(entry(1), ROOT_CONTEXT)).toBe(true); // already waiting
    expect(gate.wait(entry(10, 'ep_b'), ROOT_CONTEXT)).toBe(true);
    expect(gate.waiting).toBe(9);
  });

  it('an ended send hands its turn to the oldest waiting delivery, in that one’s own trace', () => {
    const gate = new SendGate(1);
    const [second, third] = [wakeUpTrace(), wakeUpTrace()];
    expect(gate.tryEnter(entry(1), false)).toBe(true);
    gate.wait(entry(2), second);
    gate.wait(entry(3), third);
    const turn = gate.ended(entry(1));
    expect(turn).toMatchObject({ endpointId: 'ep_a', next: { id: 'dlv_2' }, refill: false });
    expect(turn.next?.trace).toBe(second);
    expect(gate.waiting).toBe(1);
  });

  it('with nothing waiting, a turn has no taker', () => {
    const gate = new SendGate(1);
    gate.tryEnter(entry(1), false);
    expect(gate.ended(entry(1))).toEqual({ endpointId: 'ep_a', next: undefined, refill: false });
  });

  it('a hand-off from intake queues behind waiting deliveries and behind a turn being taken over, even with a slot free', () => {
    const gate = new SendGate(2);
    gate.wait(entry(1), ROOT_CONTEXT);
    expect(gate.tryEnter(entry(2), true)).toBe(false);
    expect(gate.tryEnter(entry(2, 'ep_b'), true)).toBe(true);
    // A wake-up of the sweeper (or the waiting delivery itself) takes the free slot.
    const turn = gate.passOn('ep_a');
    expect(turn.next?.id).toBe('dlv_1');
    expect(gate.tryEnter(entry(3), true)).toBe(false); // dlv_1 is being claimed for that turn
    expect(gate.tryEnter(entry(1), false)).toBe(true);
    gate.turnSettled('ep_a');
    expect(gate.tryEnter(entry(3), true)).toBe(true);
  });

  it('has no room while its parking is full and its cut limit’s slots are taken, though slots beyond the cut are free', () => {
    // 4 slots, the limit cut to 1 (EndpointThrottle): 1 sending, 16 parked.
    const gate = new SendGate(4, () => 1);
    expect(gate.tryEnter(entry(1), false)).toBe(true);
    expect(gate.tryEnter(entry(2), false)).toBe(false);
    for (let i = 2; i <= 17; i++) expect(gate.wait(entry(i), ROOT_CONTEXT)).toBe(true);
    expect(gate.hasRoom('ep_a')).toBe(false);
    // The cut lifted: a slot is free again.
    const lifted = new SendGate(4);
    lifted.tryEnter(entry(1), false);
    for (let i = 2; i <= 17; i++) lifted.wait(entry(i), ROOT_CONTEXT);
    expect(lifted.hasRoom('ep_a')).toBe(true);
  });

  it('has room while a slot is free or parking is not full; without room it asks for a refill once its queue is half drained', () => {
    const gate = new SendGate(1);
    expect(gate.hasRoom('ep_a')).toBe(true);
    gate.tryEnter(entry(1), false);
    for (let i = 2; i <= 4; i++) gate.wait(entry(i), ROOT_CONTEXT);
    expect(gate.hasRoom('ep_a')).toBe(true); // 3 of 4 parked
    gate.wait(entry(5), ROOT_CONTEXT);
    expect(gate.hasRoom('ep_a')).toBe(false);
    expect(gate.hasRoom('ep_b')).toBe(true);
    const refills = [gate.ended(entry(1))];
    for (let i = 2; i <= 5; i++) {
      gate.tryEnter(entry(i), false);
      refills.push(gate.ended(entry(i)));
    }
    expect(refills.map((t) => [t.next?.id, t.refill])).toEqual([
      ['dlv_2', false], // 3 of 4 left
      ['dlv_3', true], // 2 of 4: half
      ['dlv_4', false],
      ['dlv_5', false],
      [undefined, false],
    ]);
  });

  it('a turn being passed on is a slot in use: its parking full again, no room until the turn is settled', () => {
    const gate = new SendGate(1);
    expect(gate.tryEnter(entry(1), false)).toBe(true);
    for (let i = 2; i <= 5; i++) expect(gate.wait(entry(i), ROOT_CONTEXT)).toBe(true);
    expect(gate.ended(entry(1)).next?.id).toBe('dlv_2'); // dlv_2 being claimed for the freed slot
    expect(gate.wait(entry(6), ROOT_CONTEXT)).toBe(true); // 4 of 4 parked again
    expect(gate.hasRoom('ep_a')).toBe(false);
    gate.turnSettled('ep_a'); // dlv_2's claim found nothing: the slot is free
    expect(gate.hasRoom('ep_a')).toBe(true);
  });

  it('a delivery left in the store: a sweep at once only if the queue is at half or less; else marked, and the drain to half asks', () => {
    const gate = new SendGate(1);
    for (let i = 1; i <= 4; i++) gate.wait(entry(i), ROOT_CONTEXT);
    gate.passOn('ep_a'); // 3 of 4 parked
    expect(gate.leftInStore('ep_a')).toBe(false);
    expect(gate.passOn('ep_a').refill).toBe(true); // 2 of 4: the mark asks
    expect(gate.leftInStore('ep_a')).toBe(true);
  });

  it('room for more: its usable slots (none below those in use under a cut limit) and its free parking, less what is counted', () => {
    let cap = 4;
    const gate = new SendGate(4, () => cap);
    for (let i = 1; i <= 3; i++) expect(gate.tryEnter(entry(i), false)).toBe(true);
    expect([gate.hasRoom('ep_a', 16), gate.hasRoom('ep_a', 17)]).toEqual([true, false]); // 1 slot + 16 parking
    cap = 1; // 3 sending over a limit of 1: no slot free, the parking's 16 still are
    expect([gate.hasRoom('ep_a', 15), gate.hasRoom('ep_a', 16)]).toEqual([true, false]);
  });

  it('a full parking that refuses a delivery asks for a refill too', () => {
    const gate = new SendGate(1);
    for (let i = 1; i <= 5; i++) gate.wait(entry(i), ROOT_CONTEXT);
    expect(gate.waiting).toBe(4);
    const turns = [1, 2, 3, 4].map(() => gate.passOn('ep_a'));
    expect(turns.map((t) => t.refill)).toEqual([false, true, false, false]);
  });
});
