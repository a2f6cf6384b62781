import { definePlans } from './plan.ts';

/** The named queries of ordered lanes (delivery_lanes and the lane side of deliveries). */
export const LANES_PLANS = definePlans('lanes', {});
