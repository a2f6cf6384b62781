// The alert conditions' choices and the counts the stores keep for them: plain numbers, apart from
// the API's schemas (schemas.ts), for the store threads that count up to them (without-schemas.ts).
import { PLANS } from './plans.ts';

/** What each alert condition may be (spec: Failure notifications; configured by API and MCP). */
export const DELIVERY_FAILURE_AFTER = ['first', '5m', '15m', '60m'] as const;
export const PENDING_RETRIES_THRESHOLDS = [100, 1_000, 10_000] as const;
/**
 * How far a store must count an environment's retrying deliveries for every threshold to be
 * crossed (`count > threshold`): one past the largest. MongoDB stops its count there, so a
 * larger total reads as this many ("more than 10,000").
 */
export const PENDING_RETRIES_COUNTED_UP_TO = Math.max(...PENDING_RETRIES_THRESHOLDS) + 1;
export const USAGE_THRESHOLDS = [50, 80, 100] as const;
/** The owner's usage e-mails go at these shares of the plan, whatever the conditions. */
export const OWNER_USAGE_THRESHOLDS = [80, 100] as const;
/** The fewest live messages a month at which a plan of `monthlyLimit` can cross a usage threshold (the smallest share, 50 %). */
export function usageNoticeFloor(monthlyLimit: number): number {
  return Math.ceil((Math.min(...USAGE_THRESHOLDS, ...OWNER_USAGE_THRESHOLDS) * monthlyLimit) / 100);
}
/**
 * The fewest live messages a month that can cross any usage threshold of any plan (the smallest
 * share of the smallest monthly limit: 50 % of 10,000 = 5,000): an organization below it needs
 * no usage decision, and the store lists only those at or above it (liveMonthUsage).
 */
export const USAGE_NOTICE_FLOOR = usageNoticeFloor(Math.min(...Object.values(PLANS).map((p) => p.monthlyMessages)));
