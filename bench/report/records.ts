import type { RunQueue } from './run-queue.ts';
import type { CpuMeter, CpuShare } from './proc-stats.ts';
import { round } from './stats.ts';

/** Latency percentiles in ms. */
export interface Latency {
  p50: number;
  p99: number;
  max: number;
}

/** One measured run of a scenario: its counts, so a reader (and the smoke test) can check they add up. */
export interface RunRecord {
  /** Requests made: messages POSTed (the baseline: webhooks POSTed). */
  sent: number;
  /** Of those, accepted: 202 (baseline: 2xx). */
  accepted: number;
  /** The rest, by status. */
  rejected: Record<string, number>;
  /** Deliveries the 202s announced (sum of `deliveries`). */
  deliveriesCreated: number;
  /** How many of those the receiver must see delivered. */
  expectedDelivered: number;
  /** The rest of `deliveriesCreated`: held by a paused endpoint, or to a route answering 500. */
  notDelivered: number;
  /** Distinct signature-valid webhooks answered 2xx. */
  delivered: number;
  /** Signature-valid re-sends of something already delivered (at least once). */
  duplicates: number;
  /** Requests whose signature or timestamp did not verify: must be 0. */
  invalid: number;
  /** Signature-valid requests to failing routes (answered 500), retries included. */
  failedAnswers: number;
  /** Length of the measured span, s, and the scenario's main rate over it (per second). */
  seconds: number;
  perSecond: number;
  /** The API side: accepted per second and request latency. */
  intake: { perSecond: number; latencyMs: Latency | null } | null;
  /** Accept (message created) → received, ms. */
  latencyMs: Latency | null;
  /** Scenario-specific numbers (e.g. a group's rate, peak RSS). */
  extra: Record<string, number>;
  /** Share of one core used by each process over the measured span. */
  cpu: CpuShare;
  /**
   * Wirehook's CPU time per delivery (intake: per accepted message), µs. Less sensitive than
   * rates to other work on a shared machine: the figure to compare changes with.
   */
  wirehookCpuUs: number | null;
  /** The same by part of Wirehook (a thread in embedded mode, a service in cluster mode: see CpuUnits), µs. */
  wirehookCpuUsByPart?: Record<string, number>;
  /** Peak RSS of Wirehook over the measured span, MB. */
  peakRssMb: number;
  /** The machine's runnable threads over the span (run-queue.ts); null or absent: not sampled. */
  runQueue?: RunQueue | null;
}

/** A scenario's runs. */
export interface ScenarioResult {
  name: ScenarioName;
  /** Deliveries each accepted message makes (the baseline: 1 per POST). */
  deliveriesPerMessage: number;
  /** What was measured, for the report. */
  description: string;
  runs: RunRecord[];
  /** e2e only: one run paced below saturation (half the median rate), for latency. */
  paced?: RunRecord;
  /**
   * e2e, cluster mode, the floors and fan-out: the run before the measured ones (`settings.e2e.warming`
   * messages, or as many deliveries for fan-out), not in the medians. Its CPU a delivery is reported
   * apart: what a process costs while V8 compiles its hot code and its heap grows.
   */
  warming?: RunRecord;
  /** `ab` only: B's runs, pair by pair with `runs` (A's), and its warming run (scenarios/ab.ts). */
  variant?: { label: string; runs: RunRecord[]; warming: RunRecord };
}

/**
 * In the order they run; `cluster` and `idempotency` last, as they replace the embedded
 * process with cluster mode.
 */
export const SCENARIO_NAMES = [
  'baseline',
  'intake',
  'e2e',
  'floor',
  'threaded-floor',
  'cluster-floor',
  'fanout',
  'storm',
  'noisy',
  // After the scenarios with a history of their own (their conditions as before it), on the same warm process;
  // the backlog restarts it (on the same data: pace's messages stay for the scenarios after it).
  'pace',
  'backlog',
  'ordered',
  'capacity',
  'history',
  'transformed',
  'cluster',
  'idempotency',
  'ab',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * What `pnpm bench` runs without `--only`. `idempotency` measures one feature (Redis in front
 * of the store for Idempotency-Keys) by starting cluster mode twice, `ordered` one feature
 * (ordered delivery per key), `capacity` one more (throughput control per endpoint, in real
 * seconds), `history` one more (another org's sends beside readers of the largest attempt
 * history, issue 40), `transformed` one more (endpoint transformations' cost per delivery,
 * issue 45): ask for them by name; `ab` too (an alternated A/B of e2e against a second
 * Wirehook: `--ab-env`, `--ab-root`).
 */
const OPT_IN: readonly ScenarioName[] = ['idempotency', 'ordered', 'capacity', 'history', 'transformed', 'ab'];
export const DEFAULT_SCENARIOS: readonly ScenarioName[] = SCENARIO_NAMES.filter((name) => !OPT_IN.includes(name));

/** CPU µs per unit of work; null for none. */
export function cpuUsPer(cpuSeconds: number, units: number): number | null {
  return units > 0 ? Math.round((cpuSeconds * 1e6) / units) : null;
}

/**
 * Records what a CpuMeter measured over a span: each process's CPU, the run queue, Wirehook's
 * peak RSS, and its CPU per unit (`units` of work in the span), in all and by part.
 */
export function recordUsage(record: RunRecord, usage: ReturnType<CpuMeter['stop']>, units: number): void {
  record.cpu = usage.cpu;
  record.runQueue = usage.runQueue;
  record.peakRssMb = round(usage.peakRssBytes / 2 ** 20);
  record.wirehookCpuUs = cpuUsPer(usage.cpuSeconds.wirehook, units);
  if (units > 0) record.wirehookCpuUsByPart = Object.fromEntries(Object.entries(usage.parts).map(([part, seconds]) => [part, cpuUsPer(seconds, units)!]));
}

/** A record with nothing measured yet. */
export function emptyRecord(): RunRecord {
  return {
    sent: 0,
    accepted: 0,
    rejected: {},
    deliveriesCreated: 0,
    expectedDelivered: 0,
    notDelivered: 0,
    delivered: 0,
    duplicates: 0,
    invalid: 0,
    failedAnswers: 0,
    seconds: 0,
    perSecond: 0,
    intake: null,
    latencyMs: null,
    extra: {},
    cpu: { wirehook: 0, receiver: 0, harness: 0, others: 0, steal: 0 },
    wirehookCpuUs: null,
    peakRssMb: 0,
  };
}
