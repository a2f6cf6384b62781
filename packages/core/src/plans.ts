/** The plans an organization can be on. */
export const PLAN_NAMES = ['free', 'starter', 'pro', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  /** API requests per minute per environment, across all keys (the spec's values). */
  requestsPerMinute: number;
  /** Live messages per UTC month; above it, 402 plan_limit. The spec lists no numbers. */
  monthlyMessages: number;
  /** Whether portal links may be created (402 plan_limit on Free). */
  portal: boolean;
}

/** One table for every plan-dependent number; docs/semantics.md repeats it. */
export const PLANS: Readonly<Record<PlanName, Plan>> = Object.freeze({
  free: { requestsPerMinute: 600, monthlyMessages: 10_000, portal: false },
  starter: { requestsPerMinute: 3_000, monthlyMessages: 250_000, portal: true },
  pro: { requestsPerMinute: 12_000, monthlyMessages: 2_500_000, portal: true },
  business: { requestsPerMinute: 20_000, monthlyMessages: 25_000_000, portal: true },
});
