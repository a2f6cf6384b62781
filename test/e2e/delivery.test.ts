import { testCa } from '@wirehook/testkit';
import { startWirehook } from '../support/harness.ts';
import { TEST_ALLOW_HOSTS, testLookup } from '../support/receivers.ts';
import { describeDeliverySuite } from './delivery-suite.ts';

describeDeliverySuite('embedded, in-process', async () =>
  startWirehook({ allowHosts: TEST_ALLOW_HOSTS, lookup: testLookup, ca: (await testCa()).caPem, deliveryTimeoutMs: 1_000 }),
);
