// WakeupLedger: what is on its way stays so for a lease's length (just inside, just outside),
// sends in flight never expire, and the over-fetch count leaves them out.
import type { DeliveryId } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { WakeupLedger } from './wakeup-ledger.ts';

const LEASE_MS = 17_000;
const a = 'dlv_a' as DeliveryId;
const b = 'dlv_b' as DeliveryId;

describe('WakeupLedger', () => {
  it('a delivery noted is on its way for a lease’s length from when it was noted', () => {
    const ledger = new WakeupLedger(LEASE_MS);
    expect(ledger.isOnItsWay(a, 0)).toBe(false);
    ledger.note(a, 1_000);
    expect(ledger.isOnItsWay(a, 1_000 + LEASE_MS - 1)).toBe(true);
    expect(ledger.isOnItsWay(a, 1_000 + LEASE_MS)).toBe(false);
    ledger.note(a, 5_000); // parked again: from then
    expect(ledger.isOnItsWay(a, 1_000 + LEASE_MS)).toBe(true);
    ledger.forget(a);
    expect(ledger.isOnItsWay(a, 5_000)).toBe(false);
  });

  it('expire forgets what was noted a lease’s length ago, not a send in flight', () => {
    const ledger = new WakeupLedger(LEASE_MS);
    ledger.note(a, 0);
    ledger.note(b, 0);
    ledger.sending(b);
    ledger.expire(LEASE_MS - 1);
    expect(ledger.listed).toBe(1);
    ledger.expire(LEASE_MS);
    expect(ledger.isOnItsWay(a, 0)).toBe(false);
    expect(ledger.isOnItsWay(b, 0)).toBe(true);
    ledger.sent(b);
    expect(ledger.isOnItsWay(b, 0)).toBe(false);
  });

  it('after the clock steps back an hour, what was noted before it expires a lease from the step, not the hour later', () => {
    const ledger = new WakeupLedger(LEASE_MS);
    const HOUR = 3_600_000;
    ledger.note(a, HOUR);
    ledger.expire(0); // the first sweep after the step
    expect(ledger.isOnItsWay(a, LEASE_MS - 1)).toBe(true);
    ledger.expire(LEASE_MS);
    expect(ledger.isOnItsWay(a, LEASE_MS)).toBe(false);
  });

  it('listed counts what the store still lists as due: noted and not being sent', () => {
    const ledger = new WakeupLedger(LEASE_MS);
    ledger.sending(a); // not noted (a hand-off): nothing to leave out
    expect(ledger.listed).toBe(0);
    ledger.note(a, 0);
    ledger.note(b, 0);
    expect(ledger.listed).toBe(2);
    ledger.sending(b);
    expect(ledger.listed).toBe(1);
    ledger.sent(b);
    expect(ledger.listed).toBe(1);
    // Forgotten while its send runs (a duplicate wake-up whose claim found it leased): never below 0.
    ledger.note(b, 0);
    ledger.sending(b);
    ledger.forget(a);
    ledger.forget(b);
    expect(ledger.listed).toBe(0);
  });
});
