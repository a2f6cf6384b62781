import { definePlans } from './plan.ts';

/** The named queries of endpoints, endpoint walks, stranded repairs and endpoint stats (rollups). */
export const ENDPOINTS_PLANS = definePlans('endpoints', {});
