import { ManualClock } from '@wirehook/core';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Store } from '../../src/store.ts';
import { describeOrgAndKeyContract } from './org-contract.ts';
import { describeAttemptHistoryContract } from './attempt-history-contract.ts';
import { describeConsumerContract } from './consumer-contract.ts';
import { describeDeliveryContract } from './delivery-contract.ts';
import { describeDeliveryEndpointContract } from './delivery-endpoint-contract.ts';
import { describeEndpointContract } from './endpoint-contract.ts';
import { describeEndpointHoldContract } from './endpoint-hold-contract.ts';
import { describeEndpointStatsContract } from './endpoint-stats-contract.ts';
import { describeEgressIpContract } from './egress-ip-contract.ts';
import { describeEndpointWalkContract } from './endpoint-walk-contract.ts';
import { describeJobLeaseContract, type LeaseClock } from './job-lease-contract.ts';
import { describeEventTypeContract } from './event-type-contract.ts';
import { describeAlertContract } from './alert-contract.ts';
import { type ContractWalks, Fixtures, SQLITE_WALKS } from './fixtures.ts';
import { describeIsolationContract } from './isolation-contract.ts';
import { describeLeaseContract } from './lease-contract.ts';
import { describeMessageContract } from './message-contract.ts';
import { describeMessageIsolationContract } from './message-isolation-contract.ts';
import { describeMessageListContract } from './message-list-contract.ts';
import { describeOrderedLaneContract } from './ordered-lane-contract.ts';
import { describePortalContract } from './portal-contract.ts';
import { describeRaceContract } from './race-contract.ts';
import { describeRecoveryContract } from './recovery-contract.ts';
import { describeSealingContract } from './sealing-contract.ts';
import { describeSecretContract } from './secret-contract.ts';

/**
 * Registers the Store contract as vitest tests against the store `open` returns. One store
 * serves the whole suite; every test makes its own orgs, so the store need not be empty
 * and tests do not see each other's records. `close` defaults to `store.close()`.
 * Uses only the Store port, so every adapter runs the same suite; `leaseClock` says whose clock
 * times its job leases (the caller's, or its server's: JobLeaseRepo); `walks` how it splits an
 * endpoint's walk between a request and walkEndpoints (ContractWalks; SQLite's by default).
 */
export function describeStoreContract(
  name: string,
  open: () => Promise<Store>,
  close: (store: Store) => Promise<void> = (store) => store.close(),
  leaseClock: LeaseClock = 'caller',
  walks: ContractWalks = SQLITE_WALKS,
): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store | undefined;
    const f = new Fixtures(
      () => {
        if (store === undefined) throw new Error('the store is not open');
        return store;
      },
      new ManualClock(),
      walks,
    );

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      if (store !== undefined) await close(store);
    });

    describeOrgAndKeyContract(f);
    describeConsumerContract(f);
    describeEndpointContract(f);
    describeSecretContract(f);
    describeSealingContract(f);
    describeEventTypeContract(f);
    describeIsolationContract(f);
    describeMessageContract(f);
    describeMessageListContract(f);
    describeDeliveryContract(f);
    describeLeaseContract(f);
    describeOrderedLaneContract(f);
    describeRaceContract(f);
    describeRecoveryContract(f);
    describePortalContract(f);
    describeAlertContract(f);
    describeDeliveryEndpointContract(f);
    describeEndpointWalkContract(f);
    describeJobLeaseContract(f, leaseClock);
    describeMessageIsolationContract(f);
    describeEndpointStatsContract(f);
    describeAttemptHistoryContract(f);
    describeEgressIpContract(f);
    describeEndpointHoldContract(f);
  });
}
