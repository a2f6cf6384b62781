import type { AnyPlan } from './plan.ts';
import { ALERTS_PLANS } from './alerts.ts';
import { DELIVERIES_PLANS } from './deliveries.ts';
import { ENDPOINTS_PLANS } from './endpoints.ts';
import { LANES_PLANS } from './lanes.ts';
import { MESSAGES_PLANS } from './messages.ts';
import { MONTHS_PLANS } from './months.ts';
import { OPERATIONS_PLANS } from './operations.ts';
import { RECOVERIES_PLANS } from './recoveries.ts';
import { TENANCY_PLANS } from './tenancy.ts';

/** Every named query of the MongoDB adapter, by its name (`area.key`): what query-shapes.test.ts checks. */
export function allPlans(): ReadonlyMap<string, AnyPlan> {
  const all = new Map<string, AnyPlan>();
  for (const area of [
    ALERTS_PLANS,
    DELIVERIES_PLANS,
    ENDPOINTS_PLANS,
    LANES_PLANS,
    MESSAGES_PLANS,
    MONTHS_PLANS,
    OPERATIONS_PLANS,
    RECOVERIES_PLANS,
    TENANCY_PLANS,
  ]) {
    for (const plan of Object.values(area) as AnyPlan[]) all.set(plan.planName, plan);
  }
  return all;
}
