import { definePlans } from './plan.ts';

/** The named queries of recoveries. */
export const RECOVERIES_PLANS = definePlans('recoveries', {});
