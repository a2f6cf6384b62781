import type { Figure } from './figures.ts';
import type { BenchReport } from './report.ts';
import { quietLine } from './quiet-machine.ts';
import { RUN_QUEUE_SAMPLE_MS } from './run-queue.ts';

/** The column titles of the figures table, in order. */
export const TABLE_COLUMNS = ['scenario', 'measure', 'value', '× baseline', 'target', 'measured', 'ok'] as const;

/** The report as plain text: a header line, the figures table, CPU per scenario, Wirehook's CPU by part, and the checks. */
export function renderReport(report: BenchReport): string {
  const { machine, settings } = report;
  const runs = settings.runs === 1 ? '1 run' : `${settings.runs} runs (medians)`;
  const dispatchers = report.clusterModeRan === true ? `, cluster mode's dispatchers: ${settings.dispatchers}` : '';
  const lines = [
    `Wirehook bench — ${report.launcher}, ${report.mode}, ${runs}, c=${settings.concurrency}, ` +
      `${settings.payloadBytes}-byte payloads${dispatchers}, ${report.durationSeconds} s`,
    `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryMb} MB, Node ${machine.node}, ` +
      `load ${machine.loadAverage.start.toFixed(2)} → ${machine.loadAverage.end.toFixed(2)}${machine.nodeFlags ? `, ${machine.nodeFlags}` : ''}`,
    '',
    ...table([...TABLE_COLUMNS], report.figures.map(figureRow)),
    '',
    'CPU, % of one core (others: the rest of the machine; steal: taken by the hypervisor), Wirehook CPU per delivery (intake: per message),',
    `and the machine's runnable threads every ${RUN_QUEUE_SAMPLE_MS} ms ` +
      `(mean; % of samples with more than its ${report.machine.cpus} CPUs: a thread waiting) (medians):`,
    ...table(
      ['scenario', 'wirehook', 'receiver', 'harness', 'others', 'steal', 'wirehook µs/unit', 'peak RSS', 'runnable', '> cpus'],
      Object.values(report.scenarios).map((s) => [
        s.name,
        fmt(s.median.cpuWirehook),
        fmt(s.median.cpuReceiver),
        fmt(s.median.cpuHarness),
        fmt(s.median.cpuOthers),
        fmt(s.median.cpuSteal),
        fmt(s.median.wirehookCpuUs),
        s.median.peakRssMb === null ? '—' : `${fmt(s.median.peakRssMb)} MB`,
        fmt(s.median.runQueueMean),
        s.median.runQueueOverCpus === null ? '—' : `${fmt(s.median.runQueueOverCpus)} %`,
      ]),
    ),
    '',
    ...cpuByPart(report),
  ];
  const failed = report.checks.filter((c) => !c.ok);
  lines.push(
    failed.length === 0
      ? `counts: all ${report.checks.length} checks add up`
      : `counts: ${failed.length} of ${report.checks.length} checks FAILED:\n` +
          failed.map((c) => `  ${c.scenario} ${c.label}: ${c.name} — ${c.detail}`).join('\n'),
  );
  const missed = report.figures.filter((f) => f.pass === false).map((f) => f.id);
  lines.push(missed.length === 0 ? 'targets: all met' : `targets missed: ${missed.join(', ')}`);
  // Reports before 2026-12-08 kept no such list.
  if (report.disturbed !== undefined) lines.push(quietLine(report.disturbed));
  return `${lines.join('\n')}\n`;
}

/** Wirehook's CPU per unit by thread (embedded) or service (cluster), for the scenarios that measured it. */
function cpuByPart(report: BenchReport): string[] {
  const rows = Object.values(report.scenarios)
    .filter((s) => Object.keys(s.median.wirehookCpuUsByPart ?? {}).length > 0)
    .map((s) => [
      s.name,
      Object.entries(s.median.wirehookCpuUsByPart)
        // Under a µs a unit: a thread that ran a tick in some run, not a part worth naming.
        .filter(([, us]) => us !== null && us >= 1)
        .map(([part, us]) => `${part} ${fmt(us)}`)
        .join(', '),
    ]);
  if (rows.length === 0) return [];
  return ['Wirehook CPU per unit by part, µs (a thread in embedded mode, a service in cluster mode; medians):', ...table(['scenario', 'parts'], rows), ''];
}

function figureRow(f: Figure): string[] {
  const value = f.value === null ? '—' : `${fmt(f.value)}${f.unit === '/s' || f.unit === '' ? f.unit : ` ${f.unit}`}`;
  return [
    f.scenario,
    f.measure,
    value,
    f.ratioToBaseline === null ? '' : f.ratioToBaseline.toFixed(2),
    f.target ?? '',
    f.checked ?? '',
    f.pass === null ? '' : f.pass ? 'yes' : 'NO',
  ];
}

function fmt(n: number | null): string {
  if (n === null) return '—';
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en') : String(n);
}

/** Rows padded into columns under a header and a rule. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
