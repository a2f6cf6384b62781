import { useState } from 'preact/hooks';
import type { EndpointDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import type { Translator } from './i18n.ts';
import { Notice } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';

/** Throughput control's highest rate_limit (issue 32), as the API accepts it. */
const MAX_RATE_LIMIT = 10_000;

/**
 * The receiver asked us to wait (a 429 or 503 with Retry-After, issue 32): until when, in the
 * viewer's time zone. Nothing while no hold is in force.
 */
export function HeldNotice({ t, endpoint, now = Date.now() }: { t: Translator; endpoint: EndpointDetail; now?: number }) {
  const heldUntil = endpoint.throughput?.held_until ?? null;
  if (heldUntil === null || heldUntil <= now) return null;
  return (
    <div class="held">
      <p class="bad">{t.t('heldByReceiver', { time: t.dateTime(heldUntil) })}</p>
      <p class="help">{t.t('heldHelp')}</p>
    </div>
  );
}

/**
 * The endpoint's rate limit (issue 32): whole deliveries per second over any one second, or
 * none. A panel of its own, saved with its own PATCH (the portal forwards it to the gateway's
 * route), so the settings form and the other panels stay as they are.
 */
export function RateLimitPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const saved = endpoint.rate_limit ?? null;
  const [text, setText] = useState(saved === null ? '' : String(saved));
  const { busy, notice, error, said, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  const write = async (rateLimit: number | null) => {
    if (await patch({ rate_limit: rateLimit }, t.t(rateLimit === null ? 'rateLimitCleared' : 'saved'))) setText(rateLimit === null ? '' : String(rateLimit));
  };
  const save = (e: Event) => {
    e.preventDefault();
    // Empty is no limit; anything else goes as a number and the API says what is wrong with it.
    void write(text.trim() === '' ? null : Number(text));
  };
  const unchanged = text.trim() === (saved === null ? '' : String(saved));

  return (
    <form class="panel" onSubmit={save} noValidate>
      <h2 id="rate-limit-title">{t.t('rateLimit')}</h2>
      <p id="rate-limit-help" class="help">
        {t.t('rateLimitHelp')}
      </p>
      <div class="field">
        <label for="rate-limit">{t.t('rateLimitLabel', { max: MAX_RATE_LIMIT })}</label>
        <input
          id="rate-limit"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_RATE_LIMIT}
          step={1}
          value={text}
          placeholder={t.t('rateLimitNone')}
          aria-describedby="rate-limit-help rate-limit-error"
          aria-invalid={error !== null}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        {error && (
          <p id="rate-limit-error" class="field-error">
            {said}
          </p>
        )}
      </div>
      <div class="row">
        <button type="submit" disabled={busy || unchanged}>
          {busy ? t.t('saving') : t.t('rateLimitSave')}
        </button>
        {saved !== null && (
          <button type="button" class="link" disabled={busy} onClick={() => void write(null)}>
            {t.t('rateLimitClear')}
          </button>
        )}
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
    </form>
  );
}
