import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type EndpointDetail, type Recovery } from './api.ts';
import type { Ctx } from './ctx.ts';

/** Re-send what failed since a time; progress is polled while it runs. */
export function RecoveryPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const [recovery, setRecovery] = useState<Recovery | null>(endpoint.recovery);
  const [since, setSince] = useState(() => localInput(Date.now() - 24 * 3_600_000));
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (recovery?.status !== 'running') return;
    const timer = setInterval(() => {
      api<Recovery>('GET', `/endpoints/${endpoint.id}/recoveries/${recovery.id}`).then(setRecovery, ctx.fail);
    }, 2_000);
    return () => clearInterval(timer);
  }, [recovery?.id, recovery?.status]);

  const start = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      setRecovery(await api<Recovery>('POST', `/endpoints/${endpoint.id}/recover`, { since: new Date(since).getTime() }));
      onChange();
    } catch (err) {
      if (err instanceof ApiError && (err.status === 422 || err.status === 409)) setError(err.message);
      else ctx.fail(err);
    }
  };

  return (
    <div class="panel">
      <h2>{t.t('recovery')}</h2>
      <p class="help">{t.t('recoveryHelp')}</p>
      {recovery && (
        <p role="status">
          {recovery.status === 'running' && (
            <>
              <progress max={Math.max(recovery.total, 1)} value={recovery.queued} aria-label={t.t('recovery')} />{' '}
              {t.t('recoveryRunning', { queued: recovery.queued, total: recovery.total })}
            </>
          )}
          {recovery.status === 'done' && t.t('recoveryDone', { total: recovery.total })}
          {recovery.status === 'stopped' && t.t('recoveryStopped', { queued: recovery.queued, total: recovery.total })}
        </p>
      )}
      {recovery?.status !== 'running' && endpoint.status === 'active' && (
        <form class="row" onSubmit={start}>
          <label for="rcv-since">{t.t('recoverySince')}</label>
          <input id="rcv-since" type="datetime-local" value={since} aria-describedby="rcv-error" onInput={(e) => setSince(e.currentTarget.value)} />
          <button type="submit">{t.t('recoveryStart')}</button>
        </form>
      )}
      {error && (
        <p id="rcv-error" class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A time as a datetime-local input's value, in the viewer's time zone. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
