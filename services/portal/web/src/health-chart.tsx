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

/** A bucket's start, as short as its window allows (a time; a day and time over 7 days). */
function bucketLabel(t: Translator, window: EndpointStats['window'], at: number): string {
  const options: Intl.DateTimeFormatOptions =
    window === '7d' ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
  return new Intl.DateTimeFormat(t.locale, options).format(at);
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
  const first = series[0];
  const last = series[series.length - 1];
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
      {first && last && (
        <div class="axis" aria-hidden="true">
          <span>{bucketLabel(t, stats.window, first.at)}</span>
          <span>{bucketLabel(t, stats.window, last.at)}</span>
        </div>
      )}
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
                {series.map((b) => (
                  <tr key={b.at}>
                    <th scope="row">{bucketLabel(t, stats.window, b.at)}</th>
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
