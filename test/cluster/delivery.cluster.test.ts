import { describeDeliverySuite } from '../e2e/delivery.test-suite.ts';
import { startClusterHarness } from '../support/cluster-harness.ts';

// The delivery suite again, with every service its own process over NATS, Redis and gRPC.
describeDeliverySuite('cluster, separate processes', () => startClusterHarness());
