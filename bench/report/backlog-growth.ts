// Whether delivery keeps pace with intake, from the backlog itself: accepted minus delivered,
// sampled while the senders send (scenarios/pace.ts). Rates over each side's whole span would not
// do: once the senders stop, Wirehook only delivers and drains faster than it delivered beside
// intake, so a backlog that grew shows as a smaller shortfall than it was.

/** One reading during a send: messages accepted so far, deliveries received so far (Unix ms). */
export interface BacklogSample {
  at: number;
  accepted: number;
  delivered: number;
}

/** The share of the send's span whose samples are left out: the loop's ramp-up, the first places filling. */
export const BACKLOG_SKIP_SHARE = 0.25;
/** Samples a growth needs (after the skipped share). */
export const BACKLOG_MIN_SAMPLES = 4;

/**
 * The backlog's growth over the send after its first BACKLOG_SKIP_SHARE: the least-squares slope of
 * accepted − delivered against time (messages a second), as a percentage of the accepted rate over
 * the same samples (0: delivery keeps pace; 12: a backlog grows by 12 % of intake). Null with
 * fewer than BACKLOG_MIN_SAMPLES samples there, or nothing accepted between them.
 */
export function backlogGrowthPercent(samples: readonly BacklogSample[]): number | null {
  if (samples.length === 0) return null;
  const from = samples[0]!.at + BACKLOG_SKIP_SHARE * (samples.at(-1)!.at - samples[0]!.at);
  const kept = samples.filter((s) => s.at >= from);
  if (kept.length < BACKLOG_MIN_SAMPLES) return null;
  const first = kept[0]!;
  const last = kept.at(-1)!;
  const seconds = (last.at - first.at) / 1000;
  const acceptedPerSecond = (last.accepted - first.accepted) / seconds;
  if (!(seconds > 0) || !(acceptedPerSecond > 0)) return null;
  const ts = kept.map((s) => (s.at - first.at) / 1000);
  const backlogs = kept.map((s) => s.accepted - s.delivered);
  const meanT = ts.reduce((a, b) => a + b, 0) / ts.length;
  const meanB = backlogs.reduce((a, b) => a + b, 0) / backlogs.length;
  let covariance = 0;
  let variance = 0;
  ts.forEach((t, i) => {
    covariance += (t - meanT) * (backlogs[i]! - meanB);
    variance += (t - meanT) ** 2;
  });
  return (100 * (covariance / variance)) / acceptedPerSecond;
}
