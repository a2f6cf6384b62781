import { useState } from 'preact/hooks';
import { api, type DeliveryDetail, type Endpoint, type MessageDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { AttemptsTable } from './attempts-table.tsx';
import { CopyButton } from './copy-button.tsx';
import './delivery.css';
import type { Translator } from './i18n.ts';
import { Pill, statusWord, Time } from './ui.tsx';
import { orderingKeyHeader } from '@wirehook/core/ordering-key-header';

/**
 * The request body Wirehook sends, byte for byte as core's webhookBody writes it (type,
 * timestamp, data, compact): the payload the API returns is the stored JSON text parsed, and
 * that text is JSON.stringify's own, so stringifying it again gives the same bytes.
 */
export function sentBody(m: Pick<MessageDetail, 'event_type' | 'created_at' | 'payload'>): string {
  return `{"type":${JSON.stringify(m.event_type)},"timestamp":"${new Date(m.created_at).toISOString()}","data":${JSON.stringify(m.payload)}}`;
}

/** The same body indented for reading (not the signed bytes). */
export function formattedBody(m: Pick<MessageDetail, 'event_type' | 'created_at' | 'payload'>): string {
  return JSON.stringify(JSON.parse(sentBody(m)), null, 2);
}

/**
 * What every delivery of a message carried: the body as sent — the exact bytes signed, what a
 * customer checking a signature needs — or formatted for reading, with a copy button
 * that copies what is shown.
 */
export function SentBody({ t, message }: { t: Translator; message: MessageDetail }) {
  const [asSent, setAsSent] = useState(true);
  const body = asSent ? sentBody(message) : formattedBody(message);
  return (
    <div class="sent">
      <div class="row spread">
        <h3 id={`body-${message.id}`}>{t.t('requestBody')}</h3>
        <span class="row">
          <fieldset class="segmented">
            <legend class="sr-only">{t.t('bodyView')}</legend>
            <button type="button" aria-pressed={asSent} onClick={() => setAsSent(true)}>
              {t.t('bodyAsSent')}
            </button>
            <button type="button" aria-pressed={!asSent} onClick={() => setAsSent(false)}>
              {t.t('bodyFormatted')}
            </button>
          </fieldset>
          <CopyButton t={t} text={body} label={t.t('requestBody')} />
        </span>
      </div>
      <p class="help">{t.t(asSent ? 'bodyAsSentNote' : 'bodyFormattedNote')}</p>
      {/* Focusable: a keyboard can scroll a long payload. */}
      <pre class={asSent ? 'payload as-sent' : 'payload'} tabIndex={0}>
        <code>{body}</code>
      </pre>
    </div>
  );
}

/**
 * The headers a delivery's requests carried. They are not stored: these are the ones the
 * spec defines, filled from the message, the delivery and the latest attempt; signatures
 * shortened (they are not kept). The endpoint's extra signature header is read on opening.
 */
function SentHeaders({ ctx, messageId, delivery }: { ctx: Ctx; messageId: string; delivery: DeliveryDetail }) {
  const { t } = ctx;
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const onToggle = (e: Event) => {
    if ((e.currentTarget as HTMLDetailsElement).open && endpoint === null)
      // A deleted endpoint (404) simply has no extra header to show.
      api<Endpoint>('GET', `/endpoints/${delivery.endpoint_id}`).then(setEndpoint, () => undefined);
  };
  const latest = delivery.attempts.reduce<number | null>((at, a) => (at === null || a.at > at ? a.at : at), null);
  const rows: [string, string][] = [
    ['content-type', 'application/json'],
    ['user-agent', 'Wirehook/1'],
    ['webhook-id', messageId],
    ['webhook-timestamp', latest === null ? t.t('setEachAttempt') : String(Math.floor(latest / 1000))],
    ['webhook-signature', t.t('signatureShort')],
  ];
  if (delivery.ordering_key !== null && delivery.sequence !== null) {
    rows.push(['webhook-ordering-key', orderingKeyHeader(delivery.ordering_key)], ['webhook-sequence', String(delivery.sequence)]);
  }
  const compat = endpoint?.compat_signature;
  if (compat) rows.push([compat.header.toLowerCase(), `${compat.prefix ?? ''}${t.t('compatHeaderValue', { encoding: compat.encoding })}`]);
  return (
    <details class="headers" onToggle={onToggle}>
      <summary>{t.t('requestHeaders')}</summary>
      <p class="help">{t.t('headersNote')}</p>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>
              <code>{value}</code>
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

const WAITING_KEYS = { hold: 'waitingHold', rate_limit: 'waitingRateLimit', paused: 'waitingPaused', concurrency: 'waitingConcurrency' } as const;

/** What a waiting delivery waits on (the API's waiting_on), in words; nothing when it is not waiting. */
function WaitingOn({ t, delivery }: { t: Translator; delivery: DeliveryDetail }) {
  const w = delivery.waiting_on;
  if (w === null) return null;
  const text = w.reason === 'lane' ? t.t('waitingLane', { sequence: w.sequence }) : t.t(WAITING_KEYS[w.reason]);
  return <p class="waiting">{text}</p>;
}

/** When a waiting delivery goes next: "Next try in 4 minutes", or any moment when due. */
function NextTry({ t, delivery }: { t: Translator; delivery: DeliveryDetail }) {
  const at = delivery.next_attempt_at;
  if (at === null || (delivery.status !== 'pending' && delivery.status !== 'retrying')) return null;
  if (at <= Date.now()) return <p>{t.t('nextTryDue')}</p>;
  return (
    <p>
      {t.t('nextTry', { time: '' })}
      <Time t={t} at={at} />
    </p>
  );
}

/** One delivery of a message: its endpoint and status, when it goes next, what it sent, its attempts (newest first, older on demand), "Re-send". */
export function DeliveryBlock({
  ctx,
  messageId,
  delivery: d,
  onResend,
}: {
  ctx: Ctx;
  messageId: string;
  delivery: DeliveryDetail;
  onResend: (id: string) => void;
}) {
  const { t } = ctx;
  return (
    <div class="delivery">
      <div class="row spread">
        <span>
          <span class="url">{d.url}</span> <Pill kind={d.status}>{statusWord(t, d.status)}</Pill>
        </span>
        <button type="button" onClick={() => onResend(d.id)}>
          {t.t('resend')}
        </button>
      </div>
      <WaitingOn t={t} delivery={d} />
      <NextTry t={t} delivery={d} />
      <SentHeaders ctx={ctx} messageId={messageId} delivery={d} />
      <AttemptsTable ctx={ctx} delivery={d} />
    </div>
  );
}
