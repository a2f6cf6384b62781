// The delivery engine end to end: public API in, signed HTTPS POSTs out to real receivers
// that verify every request with the official standardwebhooks library; retries driven by
// moving the clock, never by sleeping. One suite, run in embedded mode (delivery.test.ts)
// and in cluster mode (test/cluster/delivery.cluster.test.ts).
// Its parts: delivery-healthy.test-suite.ts, -retries.ts, -signatures.ts, -endpoint-state.ts and
// -stats.ts and -ordered.ts, sharing delivery-suite-context.ts.
import { describe } from 'vitest';
import { type DeliveryHarness, deliverySuiteContext } from '../support/delivery-suite-context.ts';
import { describeEndpointState } from './delivery-endpoint-state.test-suite.ts';
import { describeHealthyEndpoint } from './delivery-healthy.test-suite.ts';
import { describeOrderedLanes } from './delivery-ordered.test-suite.ts';
import { describeRetries } from './delivery-retries.test-suite.ts';
import { describeMutualTls } from './delivery-mtls.test-suite.ts';
import { describeOAuth } from './delivery-oauth.test-suite.ts';
import { describeSignatures } from './delivery-signatures.test-suite.ts';
import { describeTransformations } from './delivery-transformation.test-suite.ts';
import { describeEndpointStats } from './delivery-stats.test-suite.ts';

export type { DeliveryHarness } from '../support/delivery-suite-context.ts';

/** Registers the delivery suite against the Wirehook `start` brings up. */
export function describeDeliverySuite(mode: string, start: () => Promise<DeliveryHarness>): void {
  describe(`delivery (${mode})`, () => {
    const suite = deliverySuiteContext(start);
    describeHealthyEndpoint(suite);
    describeRetries(suite);
    describeSignatures(suite);
    describeMutualTls(suite);
    describeOAuth(suite);
    describeTransformations(suite);
    describeEndpointState(suite);
    describeEndpointStats(suite);
    describeOrderedLanes(suite);
  });
}
