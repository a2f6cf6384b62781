import type { ComponentChildren } from 'preact';
import type { Translator } from './i18n.ts';

/** A time shown relative ("3 minutes ago") with the absolute time on hover and focus. */
export function Time({ t, at }: { t: Translator; at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={t.dateTime(at)} tabIndex={0}>
      {t.relative(at)}
    </time>
  );
}

/** A status as a pill: its colour and its word (colour is never the only signal). */
export function Pill({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`pill pill-${kind}`}>{children}</span>;
}

/** What a part of the page shows while its data is on the way (announced as busy). */
export function Loading({ t }: { t: Translator }) {
  return (
    <p class="muted" aria-busy="true">
      {t.t('loading')}
    </p>
  );
}

/** A message the page shows after an action; errors are announced to screen readers at once. */
export function Notice({ kind, children, onClose }: { kind: 'error' | 'warn' | 'ok'; children: ComponentChildren; onClose?: () => void }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <span>{children}</span>
      {onClose && (
        <button type="button" class="link" aria-label="×" onClick={onClose}>
          ×
        </button>
      )}
    </div>
  );
}

/** What an attempt did, in words: the HTTP status, or the error's kind explained. */
export function attemptResult(t: Translator, a: { response_status: number | null; error: string | null }): string {
  if (a.error === null && a.response_status !== null) return t.t('httpStatus', { status: a.response_status });
  const kind = a.error?.split(':')[0] ?? 'internal';
  const status = a.response_status === null ? '' : ` (${t.t('httpStatus', { status: a.response_status })})`;
  return `${t.errorKind(kind)}${status}`;
}

export function statusWord(t: Translator, status: string): string {
  const key = {
    active: 'statusActive',
    paused: 'statusPaused',
    disabled: 'statusDisabled',
    pending: 'statusPending',
    retrying: 'statusRetrying',
    success: 'statusSuccess',
    failed: 'statusFailed',
  }[status];
  return key ? t.t(key as Parameters<Translator['t']>[0]) : status;
}
