/** Start (Unix ms) of the UTC month `monthsBack` months before the one holding `now`. */
export function monthStart(now: number, monthsBack = 0): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsBack, 1);
}

/** Start of the oldest month still retained. */
export function retentionStart(now: number, retentionMonths: number): number {
  return monthStart(now, retentionMonths - 1);
}

/** Whether a time lies between the oldest retained month's start and the current month's end. */
export function isRetained(time: number, now: number, retentionMonths: number): boolean {
  return time >= retentionStart(now, retentionMonths) && time < monthStart(now, -1);
}

/**
 * When a UTC month's live usage counter expires, and the marks kept beside it (the MongoDB
 * store's usage-over marks): at the end of the month after the one holding `now`, so the month is
 * still read while the next begins.
 */
export function usageMonthExpiry(now: number): number {
  return monthStart(now, -2);
}
