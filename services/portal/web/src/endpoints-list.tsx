import { useEffect, useState } from 'preact/hooks';
import { api, type EndpointDetail, isListener } from './api.ts';
import type { Ctx } from './ctx.ts';
import { ListenBadge } from './listen-badge.tsx';
import { Sparkline } from './sparkline.tsx';
import { attemptResult, Loading, Pill, statusWord, Time } from './ui.tsx';

/** Screen 1: every endpoint of the consumer, with its health at a glance. */
export function EndpointsList({ ctx }: { ctx: Ctx }) {
  const { t } = ctx;
  const [items, setItems] = useState<EndpointDetail[] | null>(null);

  useEffect(() => {
    api<{ items: EndpointDetail[] }>('GET', `/endpoints?consumer_id=${ctx.session.consumer.id}`)
      // The list has no health line: read each endpoint's (a consumer has at most 20).
      .then(({ items: list }) => Promise.all(list.map((e) => api<EndpointDetail>('GET', `/endpoints/${e.id}`))))
      .then(setItems, ctx.fail);
  }, [ctx]);

  if (items === null) return <Loading t={t} />;
  return (
    <section>
      <div class="row spread">
        <h1 tabIndex={-1}>{t.t('tabEndpoints')}</h1>
        <button type="button" class="primary" onClick={() => ctx.go({ name: 'new' })}>
          {t.t('addEndpoint')}
        </button>
      </div>
      {items.length === 0 ? (
        <div class="empty">
          <h2>{t.t('endpointsEmptyTitle')}</h2>
          <p>{t.t('endpointsEmptyBody')}</p>
        </div>
      ) : (
        <ul class="cards">
          {items.map((e) => {
            const last = e.recent[0];
            const listener = isListener(e);
            return (
              <li key={e.id} class="card">
                <div class="row spread">
                  <span>
                    {listener && <span class="muted">{t.t('forwardsTo')} </span>}
                    <button type="button" class="link url" onClick={() => ctx.go({ name: 'endpoint', id: e.id })}>
                      {e.url}
                    </button>
                  </span>
                  <span class="row">
                    {listener && <ListenBadge t={t} />}
                    <Pill kind={e.status}>{statusWord(t, e.status)}</Pill>
                  </span>
                </div>
                {e.description && <p>{e.description}</p>}
                <p class="muted">{e.event_types === null ? t.t('eventTypesAll') : e.event_types.join(', ')}</p>
                <p class="muted">
                  {e.failing_since !== null ? (
                    <span class="bad">
                      {t.t('failingSince', { time: '' })}
                      <Time t={t} at={e.failing_since} />
                    </span>
                  ) : last ? (
                    <span>
                      <Time t={t} at={last.at} /> · {attemptResult(t, last)}
                    </span>
                  ) : (
                    t.t('neverAttempted')
                  )}
                </p>
                <Sparkline ctx={ctx} endpointId={e.id} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
