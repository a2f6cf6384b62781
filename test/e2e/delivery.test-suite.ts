// The delivery engine end to end: public API in, signed HTTPS POSTs out to real receivers
// that verify every request with the official standardwebhooks library; retries driven by
// moving the clock, never by sleeping. One suite, run in embedded mode (delivery.test.ts)
// and in cluster mode (test/cluster/delivery.cluster.test.ts).
// Its parts: delivery-suite-healthy.ts, -retries.ts, -signatures.ts, -endpoint-state.ts and
// -stats.ts and -ordered.ts, sharing delivery-suite-context.ts.
import { describe } from 'vitest';
import { type DeliveryHarness, deliverySuiteContext } from './delivery-suite-context.ts';
import { describeEndpointState } from './delivery-suite-endpoint-state.ts';
import { describeHealthyEndpoint } from './delivery-suite-healthy.ts';
import { describeOrderedLanes } from './delivery-suite-ordered.ts';
import { describeRetries } from './delivery-suite-retries.ts';
import { describeSignatures } from './delivery-suite-signatures.ts';
import { describeEndpointStats } from './delivery-suite-stats.ts';

export type { DeliveryHarness } from './delivery-suite-context.ts';

/** Registers the delivery suite against the Wirehook `start` brings up. */
export function describeDeliverySuite(mode: string, start: () => Promise<DeliveryHarness>): void {
  describe(`delivery (${mode})`, () => {
    const suite = deliverySuiteContext(start);
    describeHealthyEndpoint(suite);
    describeRetries(suite);
    describeSignatures(suite);
    describeEndpointState(suite);
    describeEndpointStats(suite);
    describeOrderedLanes(suite);
  });
}
