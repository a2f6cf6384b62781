import { useState } from 'preact/hooks';
import { api, ApiError, type MessageDetail } from './api.ts';
import type { Ctx } from './ctx.ts';

/** Find one message by its id (msg_…, the webhook-id header): its page, or why not, under the field. */
export function MessageSearch({ ctx }: { ctx: Ctx }) {
  const { t } = ctx;
  const [id, setId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const find = async (e: Event) => {
    e.preventDefault();
    const wanted = id.trim();
    if (!wanted) return;
    setBusy(true);
    setError(null);
    try {
      await api<MessageDetail>('GET', `/messages/${encodeURIComponent(wanted)}`);
      ctx.go({ name: 'message', id: wanted });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 422)) setError(t.t('searchNotFound'));
      else ctx.fail(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="search" onSubmit={find}>
      <label for="msg-search">{t.t('searchMessage')}</label>
      <input
        id="msg-search"
        type="search"
        value={id}
        placeholder="msg_…"
        spellcheck={false}
        aria-invalid={error !== null}
        aria-describedby={error ? 'msg-search-error' : undefined}
        onInput={(e) => setId(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        {t.t('searchFind')}
      </button>
      {error && (
        <p id="msg-search-error" class="field-error">
          {error}
        </p>
      )}
    </form>
  );
}
