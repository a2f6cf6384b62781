import { describeListenSuite } from '../e2e/listen.test-suite.ts';
import { startClusterHarness } from '../support/cluster-harness.ts';

// The CLI's WebSocket on the gateway process; the sends from a dispatcher process, over NATS.
describeListenSuite('cluster, separate processes', () => startClusterHarness());
