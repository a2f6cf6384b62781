import type { EndpointStats } from '@wirehook/client/types';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import type { Ctx } from './ctx.ts';
import './health.css';
import { HealthChart, percent, WINDOW_KEYS } from './health-chart.tsx';
import { Loading, Time } from './ui.tsx';

type Window = EndpointStats['window'];
const WINDOWS: Window[] = ['1h', '24h', '7d'];

/**
 * Is the endpoint getting its events? The window's success rate, failures, p95, what waits
 * now and since when, and the chart per bucket; a switch between the last hour, 24 hours
 * and 7 days (GET /endpoints/{id}/stats).
 */
export function HealthPanel({ ctx, endpointId }: { ctx: Ctx; endpointId: string }) {
  const { t } = ctx;
  const [span, setSpan] = useState<Window>('24h');
  const [stats, setStats] = useState<EndpointStats | null>(null);
  useEffect(() => {
    api<EndpointStats>('GET', `/endpoints/${endpointId}/stats?window=${span}`).then(setStats, ctx.fail);
  }, [endpointId, span]);

  return (
    <section class="panel" aria-labelledby="health-title">
      <div class="row spread">
        <h2 id="health-title">{t.t('health')}</h2>
        <fieldset class="segmented">
          <legend class="sr-only">{t.t('healthWindow')}</legend>
          {WINDOWS.map((w) => (
            <button key={w} type="button" aria-pressed={w === span} onClick={() => setSpan(w)}>
              {t.t(WINDOW_KEYS[w])}
            </button>
          ))}
        </fieldset>
      </div>
      {stats === null || stats.window !== span ? (
        <Loading t={t} />
      ) : (
        <>
          <dl class="figures">
            <div>
              <dt>{t.t('successRate')}</dt>
              <dd>{stats.success_rate === null ? '—' : percent(t, stats.success_rate)}</dd>
            </div>
            <div>
              <dt>{t.t('attemptsTotal')}</dt>
              <dd>{t.t('attemptsFailed', { count: stats.attempts, failed: stats.failed })}</dd>
            </div>
            <div>
              <dt>{t.t('latencyP95')}</dt>
              <dd>{stats.latency_ms.p95 === null ? '—' : t.t('ms', { n: stats.latency_ms.p95 })}</dd>
            </div>
            <div>
              <dt>{t.t('pendingNow')}</dt>
              <dd>{t.number(stats.pending)}</dd>
            </div>
            <div>
              <dt>{t.t('oldestPending')}</dt>
              <dd>{stats.oldest_pending_at === null ? '—' : <Time t={t} at={stats.oldest_pending_at} />}</dd>
            </div>
          </dl>
          {stats.attempts === 0 && <p class="muted">{t.t('healthNoAttempts')}</p>}
          <HealthChart t={t} stats={stats} />
        </>
      )}
    </section>
  );
}
