import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Endpoint, type EndpointDetail, isListener } from './api.ts';
import { AdvancedPanel } from './advanced-panel.tsx';
import type { Ctx } from './ctx.ts';
import { EndpointForm, type EndpointInput } from './endpoint-form.tsx';
import { fieldErrorText } from './field-errors.ts';
import { HeadersPanel } from './headers-panel.tsx';
import { HealthPanel } from './health-panel.tsx';
import { ListenBadge } from './listen-badge.tsx';
import { OAuthPanel } from './oauth-panel.tsx';
import { OrderingPanel } from './ordering-panel.tsx';
import { RecoveryPanel } from './recovery-panel.tsx';
import { SecretPanel } from './secret-panel.tsx';
import { HeldNotice, RateLimitPanel } from './throughput-panel.tsx';
import { TlsPanel } from './tls-panel.tsx';
import { TransformationPanel } from './transformation-panel.tsx';
import { TrialPanel } from './trial-panel.tsx';
import { attemptResult, Loading, Notice, Pill, statusWord, Time } from './ui.tsx';

/** The fields EndpointForm shows a 422 next to (`auth`: the client secret it asks for when the URL moves to another origin). */
const FORM_FIELDS = new Set(['url', 'description', 'event_types', 'retry', 'auth']);

/**
 * Screen 2 (and "Add endpoint" with `id` null): edit, pause/resume, delete, secret, recovery, custom headers, client
 * certificate, OAuth 2.0, transformation.
 */
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
    const body = {
      // A listener's URL is the CLI's --forward-to: never changed from here.
      ...(endpoint !== null && isListener(endpoint) ? {} : { url: input.url }),
      description: input.description || null,
      event_types: input.eventTypes,
      retry: input.retry,
      // Moved to another origin: its OAuth settings as they are, with the secret given again.
      ...(endpoint?.auth && input.clientSecret !== undefined ? { auth: { ...endpoint.auth, client_secret: input.clientSecret } } : {}),
    };
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
      // Next to the field the form shows; one it does not show (a rule of another panel's) is said as any other error, not lost.
      const field = err instanceof ApiError ? err.field : undefined;
      if (field !== undefined && FORM_FIELDS.has(field) && err instanceof ApiError) setFieldErrors({ [field]: fieldErrorText(t, err.message) });
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
  if (endpoint === null) return <Loading t={t} />;
  const listener = isListener(endpoint);

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
    if (!confirm(t.t(listener ? 'listenDeleteConfirm' : 'deleteConfirm', { url: endpoint.url }))) return;
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
        <h1 tabIndex={-1}>
          {listener && <span class="muted">{t.t('forwardsTo')} </span>}
          <span class="url">{endpoint.url}</span>
        </h1>
        <span class="row">
          {listener && <ListenBadge t={t} />}
          <Pill kind={endpoint.status}>{statusWord(t, endpoint.status)}</Pill>
        </span>
      </div>
      {listener && <p class="help">{t.t('listenHelp', { url: endpoint.url })}</p>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {endpoint.status === 'disabled' && <Notice kind="error">{t.t('disabledBecause')}</Notice>}
      {endpoint.failing_since !== null && (
        <p class="bad">
          {t.t('failingSince', { time: '' })}
          <Time t={t} at={endpoint.failing_since} />
        </p>
      )}
      <HeldNotice t={t} endpoint={endpoint} />
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

      <HealthPanel ctx={ctx} endpointId={endpoint.id} />
      <SecretPanel ctx={ctx} endpointId={endpoint.id} fresh={fresh} />
      {endpoint.status !== 'disabled' && <TrialPanel ctx={ctx} endpoint={endpoint} />}
      {ctx.session.features.recovery && <RecoveryPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />}
      <OrderingPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <RateLimitPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <AdvancedPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <HeadersPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <TlsPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <OAuthPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />
      <TransformationPanel ctx={ctx} endpoint={endpoint} onChange={() => reload(endpoint.id)} />

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
      <EndpointForm
        t={t}
        eventTypes={ctx.eventTypes}
        initial={endpoint}
        busy={busy}
        fieldErrors={fieldErrors}
        oauthOrigin={endpoint.auth ? new URL(endpoint.url).origin : null}
        submitLabel={t.t('save')}
        onSubmit={submit}
      />
    </section>
  );
}
