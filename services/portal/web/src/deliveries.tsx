import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type MessageDetail, type MessageRow } from './api.ts';
import type { Ctx } from './ctx.ts';
import { DeliveryBlock, SentBody } from './delivery-detail.tsx';
import { MessageSearch } from './message-search.tsx';
import { hashOf } from './routes.ts';
import { Loading, Notice, Pill, statusWord, Time } from './ui.tsx';

const STATUSES = ['failed', 'retrying', 'pending', 'success'] as const;
/** Rows a load shows, and the reads it may make for them (pages the store cut short followed). */
const PAGE_SIZE = 25;
const PAGE_READS = 5;

/** Screen 3: the consumer's deliveries, newest first, filtered, paged by cursor; attempts on demand. */
export function Deliveries({ ctx }: { ctx: Ctx }) {
  const { t } = ctx;
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [rows, setRows] = useState<MessageRow[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  // Each load's number: one that ends after the filters changed (or another began) shows nothing.
  const generation = useRef(0);

  // A filtered page may come back short, even empty, with a cursor (the store bounds what one
  // page reads: docs/semantics.md): follow it a few times for a page's worth before showing.
  const load = async (after: string | null) => {
    const mine = ++generation.current;
    setLoading(true);
    const found: MessageRow[] = [];
    let next = after;
    try {
      for (let reads = 0; reads < PAGE_READS && (reads === 0 || (next !== null && found.length < PAGE_SIZE)); reads++) {
        const q = new URLSearchParams({ limit: String(PAGE_SIZE - found.length) });
        if (status) q.set('status', status);
        if (eventType) q.set('event_type', eventType);
        if (next) q.set('cursor', next);
        const page = await api<{ items: MessageRow[]; next_cursor: string | null }>('GET', `/messages?${q}`);
        if (mine !== generation.current) return;
        found.push(...page.items);
        next = page.next_cursor;
      }
      setRows((r) => (after ? [...(r ?? []), ...found] : found));
      setCursor(next);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  };
  useEffect(() => {
    setRows(null);
    load(null).catch(ctx.fail);
  }, [status, eventType]);

  return (
    <section>
      <h1 tabIndex={-1}>{t.t('tabDeliveries')}</h1>
      <MessageSearch ctx={ctx} />
      <div class="row filters">
        <label>
          {t.t('filterStatus')}{' '}
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">{t.t('any')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusWord(t, s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.t('filterEventType')}{' '}
          <select value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
            <option value="">{t.t('any')}</option>
            {ctx.eventTypes.map((e) => (
              <option key={e.name} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {rows === null ? (
        <Loading t={t} />
      ) : rows.length === 0 ? (
        <p class="muted">{t.t(cursor ? 'deliveriesNoneYet' : 'deliveriesEmpty')}</p>
      ) : (
        <ul class="cards">
          {rows.map((row) => (
            <MessageItem key={row.id} ctx={ctx} row={row} />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" disabled={loading} onClick={() => load(cursor).catch(ctx.fail)}>
          {t.t('loadMore')}
        </button>
      )}
    </section>
  );
}

/**
 * A message's outcome: "No endpoint matched" when it has no delivery (its status alone would
 * read "Delivered"); one pill per status with its count when its deliveries ended apart
 * ("Delivered 1", "Failed 1"); else its status.
 */
function MessagePills({ t, row }: { t: Ctx['t']; row: MessageRow }) {
  if (row.endpoint_url === null) return <Pill kind="none">{t.t('noEndpointMatched')}</Pill>;
  const counts = row.delivery_statuses ?? {};
  const kinds = STATUSES.filter((s) => (counts[s] ?? 0) > 0);
  if (kinds.length < 2) return <Pill kind={row.status}>{statusWord(t, row.status)}</Pill>;
  return (
    <span class="pills">
      {kinds.map((s) => (
        <Pill key={s} kind={s}>
          {t.t('statusCount', { status: statusWord(t, s), n: counts[s] ?? 0 })}
        </Pill>
      ))}
    </span>
  );
}

function MessageItem({ ctx, row }: { ctx: Ctx; row: MessageRow }) {
  const { t } = ctx;
  const [detail, setDetail] = useState<MessageDetail | null>(null);
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const toggle = async () => {
    if (!open && detail === null)
      setDetail(
        await api<MessageDetail>('GET', `/messages/${row.id}`).catch((err) => {
          ctx.fail(err);
          return null;
        }),
      );
    setOpen(!open);
  };
  const resend = async (deliveryId: string) => {
    try {
      await api('POST', `/deliveries/${deliveryId}/retry`);
      setNotice(t.t('resent'));
      setDetail(await api<MessageDetail>('GET', `/messages/${row.id}`));
    } catch (err) {
      ctx.fail(err);
    }
  };
  return (
    <li class="card">
      <div class="row spread">
        <span>
          <code>{row.event_type}</code> · <Time t={t} at={row.created_at} />
        </span>
        <MessagePills t={t} row={row} />
      </div>
      <p class="muted">
        <code>{row.id}</code> · {t.t('attempts', { count: row.attempts.count })} · <a href={hashOf({ name: 'message', id: row.id })}>{t.t('openMessage')}</a>
      </p>
      <button type="button" class="link" aria-expanded={open} onClick={toggle}>
        {open ? t.t('hideAttempts') : t.t('showAttempts')}
      </button>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {open && detail && (
        <div class="attempts">
          <SentBody t={t} message={detail} />
          {detail.deliveries.map((d) => (
            <DeliveryBlock key={d.id} ctx={ctx} messageId={detail.id} delivery={d} onResend={resend} />
          ))}
        </div>
      )}
    </li>
  );
}
