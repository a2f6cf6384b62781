import type { EndpointStats } from '@wirehook/client/types';
import type { Translator } from './i18n.ts';

/** A rate (0 to 1) as a percentage in the viewer's locale ("98.5%"). */
export function percent(t: Translator, rate: number): string {
  return new Intl.NumberFormat(t.locale, { style: 'percent', maximumFractionDigits: 1 }).format(rate);
}

/** The window's words for a chart's or a sparkline's label: its attempts and their outcome. */
export function statsSummary(t: Translator, s: EndpointStats): string {
  const span = t.t(WINDOW_KEYS[s.window]);
  if (s.attempts === 0) return t.t('healthSummaryNone', { window: span });
  return t.t('healthSummary', { window: span, count: s.attempts, succeeded: s.succeeded, failed: s.failed, rate: percent(t, s.success_rate ?? 0) });
}

export const WINDOW_KEYS = { '1h': 'window1h', '24h': 'window24h', '7d': 'window7d' } as const;

const TIME: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const DAY: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric' };

/** A bucket's start: its time, with its date when `dated` (in the viewer's time zone). */
function bucketLabel(t: Translator, at: number, dated: boolean): string {
  return new Intl.DateTimeFormat(t.locale, dated ? { ...DAY, ...TIME } : TIME).format(at);
}

/** The viewer's calendar day of `at`, to tell where a day changes. */
function dayOf(at: number): string {
  return new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * Which buckets start a day, by index: a time alone says nothing of which day over 24
 * hours or 7 days. Over 24 hours and 7 days the first bucket counts as one too (its date says
 * which day the chart starts on); over an hour only a real change of day does.
 */
export function dayStarts(window: EndpointStats['window'], series: readonly { at: number }[]): Set<number> {
  const starts = new Set<number>();
  series.forEach((b, i) => {
    const previous = series[i - 1];
    if (previous === undefined ? window !== '1h' : dayOf(previous.at) !== dayOf(b.at)) starts.add(i);
  });
  return starts;
}

/**
 * The axis under the bars: the first and last buckets' times, and the date where a day
 * changes — on its bucket's column (one grid column per bucket), left out when it would
 * crowd the first or last label.
 */
function TimeAxis({ t, stats }: { t: Translator; stats: EndpointStats }) {
  const { series } = stats;
  const starts = dayStarts(stats.window, series);
  const last = series.length - 1;
  const gap = Math.ceil(series.length / 6);
  const label = (i: number, at: number): string | null => {
    if (i === 0 || i === last) {
      // The last bucket is dated when its day differs from the first label's.
      const dated = starts.has(i) || (i === last && [...starts].some((s) => s > 0));
      return bucketLabel(t, at, dated);
    }
    if (!starts.has(i) || i < gap || i > last - gap) return null;
    return stats.window === '7d' ? new Intl.DateTimeFormat(t.locale, DAY).format(at) : bucketLabel(t, at, true);
  };
  return (
    <div class={`axis ticks ticks-${series.length}`} aria-hidden="true">
      {series.map((b, i) => {
        const text = label(i, b.at);
        return (
          <span key={b.at} class={i === last ? 'tick tick-end' : 'tick'} data-day-start={starts.has(i) ? '' : undefined}>
            {text ?? ''}
          </span>
        );
      })}
    </div>
  );
}

const W = 600;
const H = 160;
const TOP = 8;

/**
 * Successes and failures per bucket (stacked bars: failures hatched, on top) with the p95
 * response time as a dashed line on its own scale. The picture is `role="img"` with the
 * window's summary as its name; the numbers are in a table under "Show as a table".
 */
export function HealthChart({ t, stats }: { t: Translator; stats: EndpointStats }) {
  const { series } = stats;
  const maxAttempts = Math.max(1, ...series.map((b) => b.attempts));
  const maxP95 = Math.max(1, ...series.map((b) => b.p95_ms ?? 0));
  const slot = W / series.length;
  const y = (n: number) => ((H - TOP) * n) / maxAttempts;
  // A step per bucket (across its bar), so a lone bucket still shows its p95.
  const points = series.flatMap((b, i) => {
    if (b.p95_ms === null) return [];
    const py = H - ((H - TOP) * b.p95_ms) / maxP95;
    return [`${i * slot + slot * 0.1},${py}`, `${(i + 1) * slot - slot * 0.1},${py}`];
  });
  const starts = dayStarts(stats.window, series);
  return (
    <figure class="chart">
      <div class="axis" aria-hidden="true">
        <span>{t.t('chartMaxAttempts', { n: maxAttempts })}</span>
        <span>{t.t('chartMaxP95', { n: maxP95 })}</span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={statsSummary(t, stats)}>
        <defs>
          <pattern id="health-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect class="hatch-bg" width="6" height="6" />
            <rect class="bar-bad" width="3" height="6" />
          </pattern>
        </defs>
        <line class="gridline" x1="0" x2={W} y1={TOP} y2={TOP} />
        <line class="gridline" x1="0" x2={W} y1={TOP + (H - TOP) / 2} y2={TOP + (H - TOP) / 2} />
        {series.map((b, i) => {
          const ok = y(b.succeeded);
          const bad = y(b.failed);
          const x = i * slot + slot * 0.15;
          return (
            <g key={b.at}>
              {ok > 0 && <rect class="bar-ok" x={x} y={H - ok} width={slot * 0.7} height={ok} />}
              {bad > 0 && <rect fill="url(#health-hatch)" x={x} y={H - ok - bad} width={slot * 0.7} height={bad} />}
            </g>
          );
        })}
        {points.length > 1 && <polyline class="p95-line" points={points.join(' ')} vector-effect="non-scaling-stroke" />}
      </svg>
      {series.length > 0 && <TimeAxis t={t} stats={stats} />}
      <figcaption>
        <ul class="legend">
          <li>
            <span class="swatch swatch-ok" />
            {t.t('chartSucceeded')}
          </li>
          <li>
            <span class="swatch swatch-bad" />
            {t.t('chartFailed')}
          </li>
          <li>
            <span class="swatch swatch-line" />
            {t.t('chartP95')}
          </li>
        </ul>
        <details>
          <summary>{t.t('chartTable')}</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.t('chartFrom')}</th>
                  <th scope="col">{t.t('chartSucceeded')}</th>
                  <th scope="col">{t.t('chartFailed')}</th>
                  <th scope="col">{t.t('chartP95')}</th>
                </tr>
              </thead>
              <tbody>
                {series.map((b, i) => (
                  <tr key={b.at}>
                    <th scope="row">{bucketLabel(t, b.at, starts.has(i))}</th>
                    <td>{t.number(b.succeeded)}</td>
                    <td>{t.number(b.failed)}</td>
                    <td>{b.p95_ms === null ? '—' : t.t('ms', { n: b.p95_ms })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}
