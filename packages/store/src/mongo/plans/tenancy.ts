import { definePlans } from './plan.ts';

/** The named queries of orgs, API keys, consumers, event types and portal tokens. */
export const TENANCY_PLANS = definePlans('tenancy', {});
