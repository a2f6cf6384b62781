import { startWirehook } from '../support/harness.ts';
import { reachingReceivers } from '../support/receivers.ts';
import { describeThroughputSuite } from './throughput.test-suite.ts';

describeThroughputSuite('embedded, in-process', async () => startWirehook({ ...(await reachingReceivers()), realTime: true, relaySourceIps: '127.0.0.2' }));
