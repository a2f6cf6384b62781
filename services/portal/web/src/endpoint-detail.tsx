import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Endpoint, type EndpointDetail, type MessageDetail, type Recovery } from './api.ts';
import type { Ctx } from './app.tsx';
import { EndpointForm, type EndpointInput } from './endpoint-form.tsx';
import { attemptResult, Notice, Pill, statusWord, Time } from './ui.tsx';

/** Screen 2 (and "Add endpoint" with `id` null): edit, pause/resume, delete, secret, recovery. */
export function EndpointDetailView({ ctx, id, fresh }: { ctx: Ctx; id: string | null; fresh: string | null }) {
  const { t } = ctx;
  const [endpoint, setEndpoint] = useState<EndpointDetail | null>(null);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | null>(null);

  const reload = (endpointId: string) => api<EndpointDetail>('GET', `/endpoints/${endpointId}`).then(setEndpoint, ctx.fail);
  useEffect(() => {
    if (id !== null) void reload(id);
  }, [id]);

  const submit = async (input: EndpointInput) => {
    setBusy(true);
    setFieldErrors({});
    setNotice(null);
    const body = { url: input.url, description: input.description || null, event_types: input.eventTypes, retry: input.retry };
    try {
      if (id === null) {
        const created = await api<Endpoint & { secret: string }>('POST', '/endpoints', {
          ...body,
          consumer_id: ctx.session.consumer.id,
          description: input.description || undefined,
          event_types: input.eventTypes ?? undefined,
        });
        ctx.go({ name: 'endpoint', id: created.id, secret: created.secret });
      } else {
        await api('PATCH', `/endpoints/${id}`, body);
        await reload(id);
        setNotice(t.t('saved'));
      }
    } catch (err) {
      const field = err instanceof ApiError ? err.field : undefined;
      if (field && err instanceof ApiError) setFieldErrors({ [field]: err.message });
      else ctx.fail(err);
    } finally {
      setBusy(false);
    }
  };

  if (id === null) {
    return (
      <section>
        <h1 tabIndex={-1}>{t.t('addEndpoint')}</h1>
        <EndpointForm
          t={t}
          eventTypes={ctx.eventTypes}
          initial={null}
          busy={busy}
          fieldErrors={fieldErrors}
          submitLabel={t.t('create')}
          onSubmit={submit}
          onCancel={() => ctx.go({ name: 'endpoints' })}
        />
      </section>
    );
  }
  if (endpoint === null)
    return (
      <p class="muted" aria-busy="true">
        {t.t('loading')}
      </p>
    );

  const setStatus = async (status: 'active' | 'paused') => {
    setBusy(true);
    try {
      await api('PATCH', `/endpoints/${endpoint.id}`, { status });
      await reload(endpoint.id);
    } catch (err) {
      ctx.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm(t.t('deleteConfirm', { url: endpoint.url }))) return;
    try {
      await api('DELETE', `/endpoints/${endpoint.id}`);
      ctx.go({ name: 'endpoints' });
    } catch (err) {
      ctx.fail(err);
    }
  };

  return (
    <section>
      <button type="button" class="link" onClick={() => ctx.go({ name: 'endpoints' })}>
        ← {t.t('back')}
      </button>
      <div class="row spread">
        <h1 tabIndex={-1} class="url">
          {endpoint.url}
        </h1>
        <Pill kind={endpoint.status}>{statusWord(t, endpoint.status)}</Pill>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {endpoint.status === 'disabled' && <Notice kind="error">{t.t('disabledBecause')}</Notice>}
      {endpoint.failing_since !== null && (
        <p class="bad">
          {t.t('failingSince', { time: '' })}
          <Time t={t} at={endpoint.failing_since} />
        </p>
      )}
      <div class="row">
        {endpoint.status === 'active' ? (
          <button type="button" disabled={busy} onClick={() => setStatus('paused')}>
            {t.t('pause')}
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => setStatus('active')}>
            {t.t('resume')}
          </button>
        )}
        <button type="button" class="danger" onClick={remove}>
          {t.t('delete')}
        </button>
      </div>
      {endpoint.status === 'paused' && <p class="help">{t.t('pausedHelp')}</p>}

      <SecretPanel ctx={ctx} endpointId={endpoint.id} fresh={fresh} />
      {endpoint.status !== 'disabled' && <TrialPanel ctx={ctx} endpoint={endpoint} />}
      {ctx.session.features.recovery && <RecoveryPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />}

      <h2>{t.t('recentAttempts')}</h2>
      {endpoint.recent.length === 0 ? (
        <p class="muted">{t.t('neverAttempted')}</p>
      ) : (
        <ul class="plain">
          {endpoint.recent.map((a) => (
            <li key={a.id}>
              <Time t={t} at={a.at} /> · {attemptResult(t, a)} · {t.t('ms', { n: a.duration_ms })}
            </li>
          ))}
        </ul>
      )}

      <h2>{t.t('settings')}</h2>
      <EndpointForm t={t} eventTypes={ctx.eventTypes} initial={endpoint} busy={busy} fieldErrors={fieldErrors} submitLabel={t.t('save')} onSubmit={submit} />
    </section>
  );
}

/** The signing secret: hidden until revealed, copied with one button, rotated with the overlap explained. */
function SecretPanel({ ctx, endpointId, fresh }: { ctx: Ctx; endpointId: string; fresh: string | null }) {
  const { t } = ctx;
  const [secret, setSecret] = useState<string | null>(fresh);
  const [copied, setCopied] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const reveal = () => api<{ secret: string }>('GET', `/endpoints/${endpointId}/secret`).then((r) => setSecret(r.secret), ctx.fail);
  const rotate = async () => {
    if (!confirm(t.t('rotateConfirm'))) return;
    try {
      const r = await api<{ secret: string }>('POST', `/endpoints/${endpointId}/rotate-secret`);
      setSecret(r.secret);
      setNotice(t.t('rotated'));
    } catch (err) {
      ctx.fail(err);
    }
  };
  const copy = async () => {
    if (secret === null) return;
    await navigator.clipboard.writeText(secret).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2_000);
  };
  return (
    <div class="panel">
      <h2>{t.t('secret')}</h2>
      <p class="help">{t.t('secretHelp')}</p>
      <div class="row">
        <code class="secret">{secret ?? '••••••••••••••••••••••••'}</code>
        {secret === null ? (
          <button type="button" onClick={reveal}>
            {t.t('reveal')}
          </button>
        ) : (
          <>
            <button type="button" onClick={() => setSecret(null)}>
              {t.t('hide')}
            </button>
            <button type="button" onClick={copy} aria-live="polite">
              {copied ? t.t('copied') : t.t('copy')}
            </button>
          </>
        )}
        <button type="button" onClick={rotate}>
          {t.t('rotate')}
        </button>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
    </div>
  );
}

/** One message to this endpoint only; its attempt's result is shown inline when it comes. */
function TrialPanel({ ctx, endpoint }: { ctx: Ctx; endpoint: EndpointDetail }) {
  const { t } = ctx;
  const types = endpoint.event_types ?? ctx.eventTypes.map((e) => e.name);
  const [eventType, setEventType] = useState(types[0] ?? 'test.message');
  const [payload, setPayload] = useState('{\n  "example": true\n}');
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'sent' } | { kind: 'done'; result: string } | { kind: 'error'; message: string }>({
    kind: 'idle',
  });

  const send = async (e: Event) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      setState({ kind: 'error', message: t.t('trialBadJson') });
      return;
    }
    try {
      const sent = await api<{ id: string }>('POST', `/endpoints/${endpoint.id}/test`, { event_type: eventType, payload: body });
      setState({ kind: 'sent' });
      // The attempt is made within moments: look for it a few times.
      for (let i = 0; i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const detail = await api<MessageDetail>('GET', `/messages/${sent.id}`);
        const attempt = detail.deliveries[0]?.attempts[0];
        if (attempt) return setState({ kind: 'done', result: attemptResult(t, attempt) });
      }
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setState({ kind: 'error', message: err.message });
      else ctx.fail(err);
    }
  };

  return (
    <div class="panel">
      <h2>{t.t('trial')}</h2>
      <p class="help">{t.t('trialHelp')}</p>
      <form class="form" onSubmit={send}>
        <div class="field">
          <label for="trial-type">{t.t('trialEventType')}</label>
          {types.length > 0 ? (
            <select id="trial-type" value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
              {types.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input id="trial-type" type="text" value={eventType} onInput={(e) => setEventType(e.currentTarget.value)} />
          )}
        </div>
        <div class="field">
          <label for="trial-payload">{t.t('trialPayload')}</label>
          <textarea id="trial-payload" rows={4} value={payload} aria-describedby="trial-state" onInput={(e) => setPayload(e.currentTarget.value)} />
        </div>
        <div class="row">
          <button type="submit">{t.t('trialSend')}</button>
        </div>
      </form>
      <p id="trial-state" role="status">
        {state.kind === 'sent' && t.t('trialSent')}
        {state.kind === 'done' && t.t('trialResult', { result: state.result })}
        {state.kind === 'error' && <span class="field-error">{state.message}</span>}
      </p>
    </div>
  );
}

/** Re-send what failed since a time; progress is polled while it runs. */
function RecoveryPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
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
