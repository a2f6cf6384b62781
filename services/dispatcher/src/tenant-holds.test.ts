// TenantHolds: how long a tenant's new work waits after the store refused its calls for overload.
import { ManualClock, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { HOLD_FIRST_MS, HOLD_MAX_MS, TenantHolds } from './tenant-holds.ts';

const A = { orgId: 'org_a', env: 'live' } as Tenant;
const B = { orgId: 'org_b', env: 'live' } as Tenant;

function scene() {
  const clock = new ManualClock();
  return { clock, holds: new TenantHolds(clock) };
}

describe('TenantHolds', () => {
  it('holds nothing until an overload; then the tenant 250 ms, the others not at all', () => {
    const { clock, holds } = scene();
    expect(holds.held(A)).toBe(false);
    expect(HOLD_FIRST_MS).toBe(250);
    expect(holds.overloaded(A, clock.now())).toBe(clock.now() + 250);
    expect(holds.held(A)).toBe(true);
    expect(holds.held(B)).toBe(false);
    expect(holds.heldTenants()).toEqual([A]);
    clock.advance(249);
    expect(holds.held(A)).toBe(true);
    clock.advance(1);
    expect(holds.held(A)).toBe(false);
    expect(holds.heldTenants()).toEqual([]);
  });

  it('counts the tenants held now for a scrape without acting on the holds: a step back read as the holds will move, nothing forgotten', () => {
    const { clock, holds } = scene();
    holds.overloaded(A, clock.now());
    clock.advance(100);
    holds.overloaded(B, clock.now());
    expect(holds.heldCount()).toBe(2);
    clock.advance(150); // A's over, B's 100 ms left
    expect(holds.heldCount()).toBe(1);
    expect(holds.held(A)).toBe(false); // a call that acts: the holds know the clock's time
    // The clock back an hour: B keeps what was left of it (100 ms), A stays over.
    clock.set(clock.now() - 3_600_000);
    expect(holds.heldCount()).toBe(1);
    clock.advance(99);
    expect(holds.heldCount()).toBe(1);
    // The clock forward again before any other call: the holds were not moved by the counts.
    clock.advance(3_600_000 - 99);
    expect(holds.heldCount()).toBe(1);
    expect(holds.held(B)).toBe(true);
    // Read only: A's over hold, past its quiet length, is still remembered until a call that acts.
    clock.advance(1_000);
    expect(holds.heldCount()).toBe(0);
    expect(holds.size).toBe(2);
  });

  it('the calls refused while a hold is on, or sent before it ended, begin none', () => {
    const { clock, holds } = scene();
    const sent = clock.now();
    holds.overloaded(A, sent);
    clock.advance(100);
    expect(holds.overloaded(A, clock.now())).toBeNull();
    // After the hold: a call sent during it (a time limit of seconds) tells of the same overload.
    clock.advance(5_000);
    expect(holds.overloaded(A, sent + 100)).toBeNull();
    expect(holds.held(A)).toBe(false);
  });

  it('doubles while calls sent after each hold are refused, up to 4 s; a completion after a hold starts again at 250 ms', () => {
    const { clock, holds } = scene();
    const lengths: number[] = [];
    for (let i = 0; i < 7; i++) {
      const until = holds.overloaded(A, clock.now())!;
      lengths.push(until - clock.now());
      clock.set(until);
    }
    expect(HOLD_MAX_MS).toBe(4_000);
    expect(lengths).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    holds.completed(A);
    expect(holds.overloaded(A, clock.now())! - clock.now()).toBe(250);
  });

  it('a completion written during a hold (a send from before it) keeps the hold and its growth', () => {
    const { clock, holds } = scene();
    holds.overloaded(A, clock.now());
    clock.advance(100);
    holds.completed(A);
    expect(holds.held(A)).toBe(true);
    clock.advance(150);
    expect(holds.overloaded(A, clock.now())! - clock.now()).toBe(500);
  });

  it('a hold’s length of quiet after it starts again at 250 ms, and forgets the tenant', () => {
    const { clock, holds } = scene();
    holds.overloaded(A, clock.now());
    clock.advance(250 + 249);
    expect(holds.overloaded(A, clock.now())! - clock.now()).toBe(500);
    clock.advance(500 + 500);
    expect(holds.size).toBe(1);
    expect(holds.heldTenants()).toEqual([]);
    expect(holds.size).toBe(0);
    expect(holds.overloaded(A, clock.now())! - clock.now()).toBe(250);
  });

  it('a clock stepping back an hour during a hold holds no longer than what was left of it; a hold over stays over', () => {
    const { clock, holds } = scene();
    holds.overloaded(A, clock.now());
    clock.advance(100);
    expect(holds.held(A)).toBe(true);
    clock.advance(-3_600_000);
    expect(holds.held(A)).toBe(true);
    expect(holds.nextEnd()! - clock.now()).toBe(150);
    clock.advance(150);
    expect(holds.held(A)).toBe(false);
    // Over, then the clock back a minute: still over.
    holds.overloaded(B, clock.now());
    clock.advance(300);
    expect(holds.held(B)).toBe(false);
    clock.advance(-60_000);
    expect(holds.held(B)).toBe(false);
    expect(holds.nextEnd()).toBeNull();
  });
});
