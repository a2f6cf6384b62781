import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, type EventTypeList, type EventTypeSummary, type Session } from './api.ts';
import type { Ctx, View } from './ctx.ts';
import { Deliveries } from './deliveries.tsx';
import { EndpointDetailView } from './endpoint-detail.tsx';
import { EndpointsList } from './endpoints-list.tsx';
import { EventCatalog } from './event-catalog.tsx';
import { Gone } from './gone.tsx';
import { MessageView } from './message-view.tsx';
import { translator, type Locale } from './i18n.ts';
import { useRoute } from './routes.ts';
import { Notice } from './ui.tsx';

export function App({ initialLocale }: { initialLocale: Locale }) {
  const [session, setSession] = useState<Session | null>(null);
  const [eventTypes, setEventTypes] = useState<EventTypeSummary[]>([]);
  const [gone, setGone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useRoute();
  const t = translator(session?.locale ?? initialLocale);

  const fail = useCallback((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) setGone(true);
    else setError(err instanceof Error ? err.message : String(err));
  }, []);

  // The first load, again each time "Try again" is pressed after it failed (a 429, a 5xx, the network).
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    setError(null);
    Promise.all([api<Session>('GET', '/session'), api<EventTypeList>('GET', '/event-types')]).then(([s, types]) => {
      setSession(s);
      setEventTypes(types.items.filter((e) => e.archived_at === null));
      if (s.locale) document.documentElement.lang = s.locale;
    }, fail);
  }, [fail, loads]);

  const go = useCallback((next: View) => {
    setError(null);
    setView(next);
    // Move focus to the new view's heading, for keyboard and screen-reader users.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1, main h2')?.focus());
  }, []);

  if (gone) return <Gone locale={t.locale} reason="expired" />;
  // Failed before there is a page: said, in the API's words, with a way to ask again — never "Loading…" for ever.
  if (!session)
    return error === null ? (
      <main aria-busy="true">
        <p class="muted">{t.t('loading')}</p>
      </main>
    ) : (
      <main>
        <Notice kind="error">{t.t('errorGeneric', { message: error })}</Notice>
        <button type="button" onClick={() => setLoads((n) => n + 1)}>
          {t.t('retry')}
        </button>
      </main>
    );
  const ctx: Ctx = { t, session, eventTypes, go, fail };
  const tab = view.name === 'deliveries' || view.name === 'message' ? 'deliveries' : view.name === 'catalog' ? 'catalog' : 'endpoints';
  return (
    <div class="page">
      <header class="top">
        <div>
          <p class="eyebrow">
            {t.t('title')}
            {session.environment === 'test' ? ` · ${t.t('environmentTest')}` : ''}
          </p>
          <p class="muted">{t.t('subtitle', { name: session.consumer.name ?? session.consumer.external_id })}</p>
        </div>
        <nav aria-label={t.t('title')}>
          <button
            type="button"
            class={`tab${tab === 'endpoints' ? ' current' : ''}`}
            aria-current={tab === 'endpoints' ? 'page' : undefined}
            onClick={() => go({ name: 'endpoints' })}
          >
            {t.t('tabEndpoints')}
          </button>
          <button
            type="button"
            class={`tab${tab === 'deliveries' ? ' current' : ''}`}
            aria-current={tab === 'deliveries' ? 'page' : undefined}
            onClick={() => go({ name: 'deliveries' })}
          >
            {t.t('tabDeliveries')}
          </button>
          <button
            type="button"
            class={`tab${tab === 'catalog' ? ' current' : ''}`}
            aria-current={tab === 'catalog' ? 'page' : undefined}
            onClick={() => go({ name: 'catalog' })}
          >
            {t.t('tabCatalog')}
          </button>
        </nav>
      </header>
      {error && (
        <Notice kind="error" onClose={() => setError(null)}>
          {t.t('errorGeneric', { message: error })}
        </Notice>
      )}
      <main>
        {view.name === 'endpoints' && <EndpointsList ctx={ctx} />}
        {view.name === 'new' && <EndpointDetailView ctx={ctx} id={null} fresh={null} />}
        {view.name === 'endpoint' && <EndpointDetailView key={view.id} ctx={ctx} id={view.id} fresh={view.secret ?? null} />}
        {view.name === 'deliveries' && <Deliveries ctx={ctx} />}
        {view.name === 'message' && <MessageView key={view.id} ctx={ctx} id={view.id} />}
        {view.name === 'catalog' && <EventCatalog ctx={ctx} entry={view.entry ?? null} />}
      </main>
    </div>
  );
}
