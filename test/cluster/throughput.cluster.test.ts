import { describeThroughputSuite } from '../e2e/throughput.test-suite.ts';
import { startClusterHarness } from '../support/cluster-harness.ts';

// The throughput suite again: two dispatcher processes share the limits through Redis.
describeThroughputSuite('cluster, separate processes', () => startClusterHarness());
