import { definePlans } from './plan.ts';

/** The named queries of the alerting engine's collections. */
export const ALERTS_PLANS = definePlans('alerts', {});
