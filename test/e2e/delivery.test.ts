import { startWirehook } from '../support/harness.ts';
import { reachingReceivers } from '../support/receivers.ts';
import { describeDeliverySuite } from './delivery.test-suite.ts';

describeDeliverySuite('embedded, in-process', async () => startWirehook({ ...(await reachingReceivers()), deliveryTimeoutMs: 1_000 }));
