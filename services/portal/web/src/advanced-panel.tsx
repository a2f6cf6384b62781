import type { CompatSignature, EgressIpList } from '@wirehook/client/types';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type EndpointDetail, isListener } from './api.ts';
import type { Ctx } from './ctx.ts';
import { Loading, Notice, Time } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';

const NO_COMPAT: CompatSignature = { header: '', content: 'body', encoding: 'hex', prefix: '' };

/**
 * Network and signature: sending from fixed addresses (fixed_ip) with the addresses to allow
 * (GET /egress-ips; the ones being retired with their date: shown as soon as the box is
 * ticked, so the firewall can be opened before saving), and the extra signature header for
 * receivers of another webhook format (compat_signature; null turns it off), saved together
 * by one PATCH. A listener (`wirehook listen`) is not sent from any address of Wirehook's: it
 * gets the reason instead of the fixed-IP choice.
 */
export function AdvancedPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const [on, setOn] = useState(endpoint.compat_signature !== null);
  const [fixedIp, setFixedIp] = useState(endpoint.fixed_ip);
  const [compat, setCompat] = useState<CompatSignature>(endpoint.compat_signature ?? NO_COMPAT);
  const { busy, notice, error, said, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  const set = (change: Partial<CompatSignature>) => setCompat((c) => ({ ...c, ...change }));

  const save = (e: Event) => {
    e.preventDefault();
    const body = on ? { ...compat, header: compat.header.trim(), prefix: compat.prefix || undefined } : null;
    void patch({ compat_signature: body, fixed_ip: fixedIp });
  };

  return (
    <section class="panel" aria-labelledby="advanced-title">
      <h2 id="advanced-title">{t.t('advanced')}</h2>
      <form class="form" onSubmit={save}>
        <h3>{t.t('fixedIp')}</h3>
        {isListener(endpoint) ? (
          <p class="help">{t.t('listenFixedIp')}</p>
        ) : (
          <>
            <p id="fixed-ip-help" class="help">
              {endpoint.fixed_ip ? t.t('fixedIpOn') : t.t('fixedIpOff')}
            </p>
            <label class="check">
              <input type="checkbox" checked={fixedIp} aria-describedby="fixed-ip-help" onChange={(e) => setFixedIp(e.currentTarget.checked)} />{' '}
              {t.t('fixedIp')}
            </label>
            {fixedIp && <EgressAddresses ctx={ctx} />}
          </>
        )}

        <h3>{t.t('compat')}</h3>
        <p id="compat-help" class="help">
          {t.t('compatHelp')}
        </p>
        <label class="check">
          <input type="checkbox" checked={on} aria-describedby="compat-help" onChange={(e) => setOn(e.currentTarget.checked)} /> {t.t('compatOn')}
        </label>
        {on && (
          <>
            <div class="field">
              <label for="compat-header">{t.t('compatHeader')}</label>
              <input
                id="compat-header"
                type="text"
                value={compat.header}
                placeholder="X-Hub-Signature-256"
                spellcheck={false}
                aria-describedby={error ? 'compat-error' : undefined}
                onInput={(e) => set({ header: e.currentTarget.value })}
              />
            </div>
            <div class="field inline">
              <label>
                {t.t('compatContent')}{' '}
                <select value={compat.content} onChange={(e) => set({ content: e.currentTarget.value as CompatSignature['content'] })}>
                  <option value="body">{t.t('compatBody')}</option>
                  <option value="timestamp_body">{t.t('compatTimestampBody')}</option>
                </select>
              </label>
              <label>
                {t.t('compatEncoding')}{' '}
                <select value={compat.encoding} onChange={(e) => set({ encoding: e.currentTarget.value as CompatSignature['encoding'] })}>
                  <option value="hex">hex</option>
                  <option value="base64">base64</option>
                </select>
              </label>
            </div>
            <div class="field">
              <label for="compat-prefix">{t.t('compatPrefix')}</label>
              <input id="compat-prefix" type="text" value={compat.prefix ?? ''} spellcheck={false} onInput={(e) => set({ prefix: e.currentTarget.value })} />
            </div>
          </>
        )}
        {error && (
          <p id="compat-error" class="field-error">
            {said}
          </p>
        )}
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t.t('saving') : t.t('advancedSave')}
          </button>
        </div>
        {notice && <Notice kind="ok">{notice}</Notice>}
      </form>
    </section>
  );
}

/** The addresses a fixed_ip endpoint is sent from, to allow in the customer's firewall. */
function EgressAddresses({ ctx }: { ctx: Ctx }) {
  const { t } = ctx;
  const [items, setItems] = useState<EgressIpList['items'] | null>(null);
  useEffect(() => {
    api<EgressIpList>('GET', '/egress-ips').then((r) => setItems(r.items), ctx.fail);
  }, []);
  return (
    <>
      <p class="help">{t.t('fixedIpHelp')}</p>
      {items === null ? (
        <Loading t={t} />
      ) : items.length === 0 ? (
        <p>{t.t('egressNone')}</p>
      ) : (
        <>
          <h4 id="egress-title">{t.t('egressList')}</h4>
          <ul class="plain" aria-labelledby="egress-title">
            {items.map((a) => (
              <li key={a.ip}>
                <code>{a.ip}</code>
                {a.retiring_at !== null && (
                  <span class="muted">
                    {' · '}
                    {around(t.t('egressRetiring', { time: '\u0000' }), <Time t={t} at={a.retiring_at} />)}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** A translated text with `{time}` given as U+0000, the node put where the time goes (its place differs by language). */
function around(text: string, node: ComponentChildren) {
  const [before, after = ''] = text.split('\u0000');
  return (
    <>
      {before}
      {node}
      {after}
    </>
  );
}
