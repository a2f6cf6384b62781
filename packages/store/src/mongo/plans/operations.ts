import { definePlans } from './plan.ts';

/** The named queries of job leases, sealing key checks, the egress IP pool and usage counters. */
export const OPERATIONS_PLANS = definePlans('operations', {});
