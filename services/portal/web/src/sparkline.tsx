import type { EndpointStats } from '@wirehook/client/types';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import type { Ctx } from './ctx.ts';
import './health.css';
import { percent, statsSummary } from './health-chart.tsx';

/**
 * An endpoint's last 24 hours at a glance on the list: a bar per hour, the failed part on top
 * in the failure colour; its words (attempts, success rate) beside it and as its label.
 * One stats call per endpoint shown (a consumer has at most 20).
 */
export function Sparkline({ ctx, endpointId }: { ctx: Ctx; endpointId: string }) {
  const { t } = ctx;
  const [stats, setStats] = useState<EndpointStats | null>(null);
  useEffect(() => {
    // A sparkline that cannot load says nothing rather than failing the whole list.
    api<EndpointStats>('GET', `/endpoints/${endpointId}/stats?window=24h`).then(setStats, () => setStats(null));
  }, [endpointId]);
  if (stats === null) return null;
  const max = Math.max(1, ...stats.series.map((b) => b.attempts));
  const w = 96 / stats.series.length;
  const label = statsSummary(t, stats);
  return (
    <span class="sparkline">
      <svg viewBox="0 0 96 24" preserveAspectRatio="none" role="img" aria-label={label}>
        {stats.series.map((b, i) => {
          const ok = (b.succeeded / max) * 24;
          const bad = (b.failed / max) * 24;
          return (
            <g key={b.at}>
              {ok > 0 && <rect class="bar-ok" x={i * w + 0.5} y={24 - ok} width={w - 1} height={ok} />}
              {bad > 0 && <rect class="bar-bad" x={i * w + 0.5} y={24 - ok - bad} width={w - 1} height={bad} />}
            </g>
          );
        })}
      </svg>
      <span class="small muted" aria-hidden="true">
        {stats.success_rate === null ? t.t('healthNoAttempts') : t.t('healthRateShort', { rate: percent(t, stats.success_rate) })}
      </span>
    </span>
  );
}
