import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type MessageDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { DeliveryBlock, SentBody } from './delivery-detail.tsx';
import { Loading, Notice, Pill, statusWord, Time } from './ui.tsx';

/**
 * One message (#/messages/msg_…): its event type and time, each endpoint it went to with that
 * delivery's status, what was sent, and every delivery's attempts with "Re-send".
 */
export function MessageView({ ctx, id }: { ctx: Ctx; id: string }) {
  const { t } = ctx;
  const [message, setMessage] = useState<MessageDetail | null>(null);
  const [missing, setMissing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const load = () =>
    api<MessageDetail>('GET', `/messages/${encodeURIComponent(id)}`).then(setMessage, (err) => {
      if (err instanceof ApiError && err.status === 404) setMissing(true);
      else ctx.fail(err);
    });
  useEffect(() => {
    void load();
  }, [id]);

  const resend = async (deliveryId: string) => {
    try {
      await api('POST', `/deliveries/${deliveryId}/retry`);
      setNotice(t.t('resent'));
      await load();
    } catch (err) {
      ctx.fail(err);
    }
  };

  const back = (
    <button type="button" class="link" onClick={() => ctx.go({ name: 'deliveries' })}>
      ← {t.t('backToDeliveries')}
    </button>
  );
  if (missing)
    return (
      <section>
        {back}
        <h1 tabIndex={-1}>{t.t('messageTitle')}</h1>
        <Notice kind="error">{t.t('searchNotFound')}</Notice>
      </section>
    );
  if (message === null) return <Loading t={t} />;
  return (
    <section>
      {back}
      <h1 tabIndex={-1}>
        {t.t('messageTitle')} <code>{message.id}</code>
      </h1>
      <p>
        <code>{message.event_type}</code> · <Time t={t} at={message.created_at} />
        {message.ordering_key !== null && (
          <>
            {' '}
            · <code>{message.ordering_key}</code>
          </>
        )}
      </p>
      {notice && <Notice kind="ok">{notice}</Notice>}
      <h2>{t.t('perEndpoint')}</h2>
      {message.deliveries.length === 0 ? (
        <p>
          <Pill kind="none">{t.t('noEndpointMatched')}</Pill>
        </p>
      ) : (
        <ul class="plain">
          {message.deliveries.map((d) => (
            <li key={d.id}>
              <span class="url">{d.url}</span> <Pill kind={d.status}>{statusWord(t, d.status)}</Pill> · {t.t('attempts', { count: d.attempt_count })}
            </li>
          ))}
        </ul>
      )}
      <h2>{t.t('whatWasSent')}</h2>
      <SentBody t={t} message={message} />
      {message.deliveries.map((d) => (
        <DeliveryBlock key={d.id} ctx={ctx} messageId={message.id} delivery={d} onResend={resend} />
      ))}
    </section>
  );
}
