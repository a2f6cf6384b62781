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
import { UPGRADE_PLANS } from './upgrade.ts';

/** The plans of each area, by the name its module exports them under (plan-collections.test.ts reads the imports by it). */
export const PLAN_AREAS: Readonly<Record<string, Readonly<Record<string, AnyPlan>>>> = {
  ALERTS_PLANS,
  DELIVERIES_PLANS,
  ENDPOINTS_PLANS,
  LANES_PLANS,
  MESSAGES_PLANS,
  MONTHS_PLANS,
  OPERATIONS_PLANS,
  RECOVERIES_PLANS,
  TENANCY_PLANS,
  UPGRADE_PLANS,
};

/** Every named query of the MongoDB adapter, by its name (`area.key`): what query-shapes.test.ts checks. */
export function allPlans(): ReadonlyMap<string, AnyPlan> {
  const all = new Map<string, AnyPlan>();
  for (const area of Object.values(PLAN_AREAS)) for (const plan of Object.values(area)) all.set(plan.planName, plan);
  return all;
}
