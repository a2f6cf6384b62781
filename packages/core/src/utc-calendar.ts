// The UTC day and month a time falls in, as the keys that name them: usage counters
// (`test:org_…:2026-11-22`, `live:org_…:2026-11`) and the alerting engine's once-a-day and
// once-a-month notices. One format, so a counter written by intake is the one alerting reads.

/** The UTC day of `now` (Unix ms), `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The UTC month of `now` (Unix ms), `YYYY-MM`. */
export function utcMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}
