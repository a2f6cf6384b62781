import { useState } from 'preact/hooks';
import { api } from './api.ts';
import type { Ctx } from './ctx.ts';
import { Notice } from './ui.tsx';

/** The signing secret: hidden until revealed, copied with one button, rotated with the overlap explained. */
export function SecretPanel({ ctx, endpointId, fresh }: { ctx: Ctx; endpointId: string; fresh: string | null }) {
  const { t } = ctx;
  const [secret, setSecret] = useState<string | null>(fresh);
  const [copied, setCopied] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const reveal = () => api<{ secret: string }>('GET', `/endpoints/${endpointId}/secret`).then((r) => setSecret(r.secret), ctx.fail);
  const rotate = async () => {
    if (!confirm(t.t('rotateConfirm'))) return;
    try {
      const r = await api<{ secret: string }>('POST', `/endpoints/${endpointId}/rotate-secret`);
      setSecret(r.secret);
      setNotice(t.t('rotated'));
    } catch (err) {
      ctx.fail(err);
    }
  };
  const copy = async () => {
    if (secret === null) return;
    await navigator.clipboard.writeText(secret).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2_000);
  };
  return (
    <div class="panel">
      <h2>{t.t('secret')}</h2>
      <p class="help">{t.t('secretHelp')}</p>
      <div class="row">
        <code class="secret">{secret ?? '••••••••••••••••••••••••'}</code>
        {secret === null ? (
          <button type="button" onClick={reveal}>
            {t.t('reveal')}
          </button>
        ) : (
          <>
            <button type="button" onClick={() => setSecret(null)}>
              {t.t('hide')}
            </button>
            <button type="button" onClick={copy} aria-live="polite">
              {copied ? t.t('copied') : t.t('copy')}
            </button>
          </>
        )}
        <button type="button" onClick={rotate}>
          {t.t('rotate')}
        </button>
      </div>
      {notice && <Notice kind="ok">{notice}</Notice>}
    </div>
  );
}
