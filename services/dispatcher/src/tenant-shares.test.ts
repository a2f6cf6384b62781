// TenantShares alone: the default share's numbers, the bound on both sides, and when a tenant's
// sends ending ask for a sweep (down to half its share, only after something was left in the store).
import { type Environment, ManualClock, type OrgId, type Tenant } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { TenantHolds } from './tenant-holds.ts';
import { defaultPlacesPerTenant, TenantShares } from './tenant-shares.ts';

const tenant = (org: string, env: Environment = 'live'): Tenant => ({ orgId: org as OrgId, env });

describe('defaultPlacesPerTenant', () => {
  it('is a quarter of the places, at least one endpoint’s slots, at most the places', () => {
    expect(defaultPlacesPerTenant(512, 16)).toBe(128);
    expect(defaultPlacesPerTenant(68, 16)).toBe(17);
    // A quarter of 64 and of 40 is at or below the 16 slots: the slots.
    expect(defaultPlacesPerTenant(64, 16)).toBe(16);
    expect(defaultPlacesPerTenant(40, 16)).toBe(16);
    expect(defaultPlacesPerTenant(8, 16)).toBe(8);
  });
});

/** Shares of 4 places a tenant, with its holds for a store overload on a clock of the test's. */
function heldShares() {
  const clock = new ManualClock();
  const holds = new TenantHolds(clock);
  return { clock, holds, shares: new TenantShares(4, holds) };
}

describe('TenantShares', () => {
  it('lets a tenant take 4 of a share of 4 and refuses the 5th; another tenant, and the same org’s test environment, have their own', () => {
    const shares = new TenantShares(4);
    for (let i = 0; i < 4; i++) expect(shares.tryTake(tenant('org_a'))).toBe(true);
    expect(shares.tryTake(tenant('org_a'))).toBe(false);
    expect(shares.taken(tenant('org_a'))).toBe(4);
    expect(shares.tryTake(tenant('org_b'))).toBe(true);
    expect(shares.tryTake(tenant('org_a', 'test'))).toBe(true);
  });

  it('hasRoom counts what the caller adds: 3 taken and 0 more has room, 3 and 1 more has none', () => {
    const shares = new TenantShares(4);
    for (let i = 0; i < 3; i++) shares.tryTake(tenant('org_a'));
    expect(shares.hasRoom(tenant('org_a'), 0)).toBe(true);
    expect(shares.hasRoom(tenant('org_a'), 1)).toBe(false);
  });

  it('asks for a sweep once a tenant that was refused is down to half its share (2 of 4), not at 3, and once only', () => {
    const shares = new TenantShares(4);
    for (let i = 0; i < 4; i++) shares.tryTake(tenant('org_a'));
    expect(shares.tryTake(tenant('org_a'))).toBe(false);
    expect(shares.give(tenant('org_a'))).toBe(false); // 3 left
    expect(shares.give(tenant('org_a'))).toBe(true); // 2 left
    expect(shares.give(tenant('org_a'))).toBe(false); // 1 left: asked already
  });

  it('asks for no sweep when nothing of the tenant was refused', () => {
    const shares = new TenantShares(4);
    for (let i = 0; i < 4; i++) shares.tryTake(tenant('org_a'));
    expect([1, 2, 3, 4].map(() => shares.give(tenant('org_a')))).toEqual([false, false, false, false]);
  });

  it('a tenant held for a store overload has no room and is listed full for the sweep; what it claimed is still taken, and others are free', () => {
    const { clock, holds, shares } = heldShares();
    shares.tryTake(tenant('org_a'));
    holds.overloaded(tenant('org_a'), clock.now());
    expect(shares.held(tenant('org_a'))).toBe(true);
    expect(shares.hasRoom(tenant('org_a'))).toBe(false);
    expect(shares.fullTenants()).toEqual([tenant('org_a')]);
    // A delivery of its claimed already (before the hold) is sent.
    expect(shares.tryTake(tenant('org_a'))).toBe(true);
    expect(shares.hasRoom(tenant('org_b'))).toBe(true);
    // Listed once when it is also at its share.
    for (let i = 0; i < 2; i++) shares.tryTake(tenant('org_a'));
    expect(shares.fullTenants()).toEqual([tenant('org_a')]);
    clock.advance(250);
    expect(shares.hasRoom(tenant('org_b'))).toBe(true);
    expect(shares.held(tenant('org_a'))).toBe(false);
    expect(shares.fullTenants()).toEqual([tenant('org_a')]); // at its share still: 4 of 4
    shares.give(tenant('org_a'));
    expect(shares.hasRoom(tenant('org_a'))).toBe(true);
    expect(shares.fullTenants()).toEqual([]);
  });

  it('a held tenant’s sends ending ask for no sweep (it would list none of its); after the hold, the next does', () => {
    const { clock, holds, shares } = heldShares();
    for (let i = 0; i < 4; i++) shares.tryTake(tenant('org_a'));
    expect(shares.tryTake(tenant('org_a'))).toBe(false); // marked: something of it left in the store
    holds.overloaded(tenant('org_a'), clock.now());
    expect(shares.heldUntil()).toBe(clock.now() + 250);
    expect(shares.give(tenant('org_a'))).toBe(false);
    expect(shares.give(tenant('org_a'))).toBe(false); // 2 of 4 left, held
    clock.advance(250);
    expect(shares.heldUntil()).toBeNull();
    expect(shares.give(tenant('org_a'))).toBe(true); // 1 left, the mark kept through the hold
  });

  it('a held tenant under its share is not marked by a sweep (its hold’s end sweeps): its sends ending later ask for none', () => {
    const { clock, holds, shares } = heldShares();
    shares.tryTake(tenant('org_a'));
    holds.overloaded(tenant('org_a'), clock.now());
    shares.mayHaveMore(tenant('org_a'));
    clock.advance(250);
    expect(shares.give(tenant('org_a'))).toBe(false);
    // Not held: marked as before.
    shares.tryTake(tenant('org_a'));
    shares.mayHaveMore(tenant('org_a'));
    expect(shares.give(tenant('org_a'))).toBe(true);
  });
});
