import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchSettings } from '../settings.ts';
import { figuresOf, mediansOf, type Figure, type Medians } from './figures.ts';
import { variantMedians } from './medians.ts';
import { disturbedRuns, type DisturbedRun, labelledRuns } from './quiet-machine.ts';
import type { RunRecord, ScenarioName, ScenarioResult } from './records.ts';

/** The machine a report was made on. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryMb: number;
  node: string;
  platform: string;
  /** 1-minute load average at the start and the end: other work on the machine shows here. */
  loadAverage: { start: number; end: number };
  /**
   * Node and V8 flags embedded mode's process ran with (they move memory and CPU):
   * NODE_OPTIONS, ./dev's WIREHOOK_NODE_FLAGS and --node-args. Cluster mode's services get
   * NODE_OPTIONS only.
   */
  nodeFlags: string;
}

/** One consistency check of one run (the counts add up). */
export interface Check {
  scenario: ScenarioName;
  /** 1-based, in this order: the measured runs, e2e's paced run, the warming run, then an A/B's B runs and B's warming. */
  run: number;
  /** Which run that is, in words: `run 2`, `paced`, `warming`, `B run 1`, `B warming`. */
  label: string;
  name: string;
  ok: boolean;
  detail: string;
}

/** `bench/results/<date>.json`. */
export interface BenchReport {
  version: 1;
  mode: BenchSettings['mode'];
  launcher: string;
  startedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  settings: BenchSettings;
  /**
   * Whether the run launched cluster mode at all (where `settings.dispatchers` applies): recorded by
   * the launches themselves, not guessed from scenario names. Absent in reports before 2026-12-05.
   */
  clusterModeRan?: boolean;
  scenarios: Partial<Record<ScenarioName, ScenarioResult & { median: Medians }>>;
  figures: Figure[];
  checks: Check[];
  /** The runs other work on the machine disturbed (quiet-machine.ts); empty: a quiet machine. Absent in reports before 2026-12-08. */
  disturbed?: DisturbedRun[];
}

export function machineInfo(loadAtStart: number, nodeArgs = ''): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryMb: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    nodeFlags: [process.env['NODE_OPTIONS'], process.env['WIREHOOK_NODE_FLAGS'], nodeArgs].filter(Boolean).join(' '),
  };
}

/** Assembles the report: medians, figures and the count checks. */
export function buildReport(
  args: Omit<BenchReport, 'version' | 'scenarios' | 'figures' | 'checks' | 'disturbed'> & { results: ScenarioResult[] },
): BenchReport {
  const { results, ...rest } = args;
  const scenarios: BenchReport['scenarios'] = {};
  for (const result of results) {
    const median = mediansOf(result.runs, result.paced, result.warming);
    if (result.variant) median.variant = variantMedians(result.runs, result.variant);
    scenarios[result.name] = { ...result, median };
  }
  const medians = Object.fromEntries(Object.entries(scenarios).map(([name, s]) => [name, s.median]));
  return { version: 1, ...rest, scenarios, figures: figuresOf(medians), checks: results.flatMap(checksOf), disturbed: disturbedRuns(results) };
}

/** Every run's counts must add up: all accepted, deliveries as announced, all delivered, no bad signature. */
export function checksOf(result: ScenarioResult): Check[] {
  // Numbered on from the measured runs: the paced run, the warming run, then an A/B's B runs and B's warming.
  const labelled = labelledRuns(result);
  return labelled.flatMap(([r, label], index) => {
    const run = index + 1;
    const check = (name: string, ok: boolean, detail: string): Check => ({ scenario: result.name, run, label, name, ok, detail });
    return [
      check('all accepted', r.accepted === r.sent, `${r.accepted} of ${r.sent} accepted; refused: ${JSON.stringify(r.rejected)}`),
      check(
        'deliveries as announced',
        r.deliveriesCreated === r.accepted * result.deliveriesPerMessage,
        `${r.deliveriesCreated} deliveries for ${r.accepted} messages × ${result.deliveriesPerMessage}`,
      ),
      check(
        'deliveries accounted for',
        r.expectedDelivered + r.notDelivered === r.deliveriesCreated,
        `${r.expectedDelivered} to deliver + ${r.notDelivered} held or failing = ${r.deliveriesCreated}`,
      ),
      check('all delivered', r.delivered === r.expectedDelivered, `${r.delivered} of ${r.expectedDelivered} received`),
      check('signatures valid', r.invalid === 0, `${r.invalid} invalid or unknown-route requests`),
      ...(result.name === 'idempotency' ? idempotencyChecks(r, check) : []),
      ...('probeFailed' in r.extra ? [check('API probes answered', r.extra['probeFailed'] === 0, `${r.extra['probeFailed']} probes not answered 200`)] : []),
      ...('controlProbeFailed' in r.extra
        ? [check('control probes answered', r.extra['controlProbeFailed'] === 0, `${r.extra['controlProbeFailed']} probes of the bare server not answered 200`)]
        : []),
      ...(result.name === 'history'
        ? [
            check(
              'history reads answered',
              (r.extra['reads'] ?? 0) > 0 && r.extra['readFailed'] === 0,
              `${r.extra['reads']} reads answered 200, ${r.extra['readFailed']} not`,
            ),
          ]
        : []),
      ...(result.name === 'transformed' ? transformedChecks(r, check) : []),
      ...(result.name === 'ordered'
        ? [check('in order per key', r.extra['outOfOrder'] === 0, `${r.extra['outOfOrder']} webhooks below their key's last sequence`)]
        : []),
    ];
  });
}

/**
 * The transformed scenario: its transformation ran for every delivery of the transformed phases
 * (Wirehook's wirehook_transformations_total; a run that failed is retried and sent, so failures
 * are a figure), never in the others; the other phases' counts add up; no sandbox thread was
 * started before the first transformed send.
 */
function transformedChecks(r: RunRecord, check: (name: string, ok: boolean, detail: string) => Check): Check[] {
  const { transformedRuns = 0, transformedExpected = 0, transformFailures = 0, untransformedRuns = 0, otherPhasesShort = 0 } = r.extra;
  return [
    check(
      'transformed every delivery',
      transformedRuns >= transformedExpected,
      `${transformedRuns} transformations sent for ${transformedExpected} deliveries (warm-ups included); ` +
        `${transformFailures} cancelled or failed (retried; a figure, not a count)`,
    ),
    check(
      'no transformation ran without one enabled',
      untransformedRuns === 0,
      `${untransformedRuns} transformations in the none, none again and disabled phases`,
    ),
    check(
      'other phases add up',
      otherPhasesShort === 0,
      `${otherPhasesShort} sends refused, deliveries missing or invalid in the none, none again and disabled phases`,
    ),
    ...('threadsBeforeFirstEnabled' in r.extra
      ? [
          check(
            'no sandbox thread before a transformation',
            r.extra['threadsBeforeFirstEnabled'] === 0,
            `${r.extra['threadsBeforeFirstEnabled']} sandbox threads alive before the first transformed phase (after none and disabled ones)`,
          ),
        ]
      : []),
  ];
}

/** One message per key, whatever the duplicates; every replay answered with the original id. */
function idempotencyChecks(r: RunRecord, check: (name: string, ok: boolean, detail: string) => Check): Check[] {
  const { burstKeys = 0, burstKeysWithOneMessage = 0, burstsWithSplitIds = 0, replaysWithWrongId = 0 } = r.extra;
  return [
    check(
      'one message per key',
      burstKeys > 0 && burstKeysWithOneMessage === burstKeys,
      `${burstKeysWithOneMessage} of ${burstKeys} burst keys made exactly one message`,
    ),
    check('one id per burst', burstsWithSplitIds === 0, `${burstsWithSplitIds} bursts answered with more than one id (or not all 202)`),
    check('replays answer the original id', replaysWithWrongId === 0, `${replaysWithWrongId} replays answered otherwise`),
  ];
}

/** Writes the report as `<dir>/<date>.json` (date and time, UTC) into `dir`, made at the bench's start (bench/main.ts); @returns the path. */
export function writeReport(report: BenchReport, dir: string): string {
  const stamp = report.startedAt.slice(0, 19).replace(/:/g, '-');
  const file = join(dir, `${report.mode === 'smoke' ? 'smoke-' : ''}${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
