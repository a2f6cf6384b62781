import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Attempt, type DeliveryDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { attemptResult, Time } from './ui.tsx';

/** The older attempts read so far, for the delivery object they continue (a reload starts over). */
interface Older {
  of: DeliveryDetail;
  rows: Attempt[];
  cursor: string | null;
}

/**
 * A delivery's attempts, newest first: the newest 20 it comes with, then "Show older attempts"
 * reads the next page (GET /deliveries/{id}/attempts from its cursor) and adds it below, until
 * no cursor is left (a delivery no longer carries its whole history).
 */
export function AttemptsTable({ ctx, delivery }: { ctx: Ctx; delivery: DeliveryDetail }) {
  const { t } = ctx;
  const [older, setOlder] = useState<Older | null>(null);
  const [busy, setBusy] = useState(false);
  const [focusRow, setFocusRow] = useState<number | null>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  // Pages read for an earlier copy of the delivery (before a re-send reloaded it) no longer continue it.
  const current = older?.of === delivery ? older : { of: delivery, rows: [], cursor: delivery.attempts_next_cursor };
  // The delivery lists its newest oldest-first; pages come newest-first, so the table reads down into the past.
  const rows = [...delivery.attempts].reverse().concat(current.rows);

  useEffect(() => {
    // Keyboard users go on from the first row just added (the button may be gone).
    if (focusRow !== null) body.current?.rows[focusRow]?.querySelector<HTMLElement>('time')?.focus();
  }, [focusRow]);

  const showOlder = async () => {
    if (busy || current.cursor === null) return;
    setBusy(true);
    try {
      const q = new URLSearchParams({ cursor: current.cursor });
      const page = await api<{ items: Attempt[]; next_cursor: string | null }>('GET', `/deliveries/${encodeURIComponent(delivery.id)}/attempts?${q}`);
      setOlder({ of: delivery, rows: [...current.rows, ...page.items], cursor: page.next_cursor });
      setFocusRow(page.items.length > 0 ? rows.length : null);
    } catch (err) {
      ctx.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.t('attemptAt')}</th>
              <th scope="col">{t.t('attemptResult')}</th>
              <th scope="col">{t.t('attemptDuration')}</th>
              <th scope="col">{t.t('attemptVia')}</th>
              <th scope="col">{t.t('attemptResponse')}</th>
            </tr>
          </thead>
          <tbody ref={body}>
            {rows.map((a) => (
              <tr key={a.id}>
                <td>
                  <Time t={t} at={a.at} />
                </td>
                <td>
                  {attemptResult(t, a)}
                  {a.error && <div class="muted small">{a.error}</div>}
                </td>
                <td>{t.t('ms', { n: a.duration_ms })}</td>
                <td>{a.source_ip ? t.t(a.via === 'relay' ? 'viaRelay' : 'viaDirect', { ip: a.source_ip }) : '—'}</td>
                <td>
                  <code class="head">{a.response_head ?? t.t('noResponse')}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {current.cursor !== null && (
        // Not `disabled` while reading: a disabled button drops the keyboard focus.
        <button type="button" class="older" aria-disabled={busy} aria-busy={busy} onClick={showOlder}>
          {busy ? t.t('loading') : t.t('showOlderAttempts')}
        </button>
      )}
    </>
  );
}
