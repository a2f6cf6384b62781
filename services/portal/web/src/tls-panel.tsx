import { useState } from 'preact/hooks';
import { type EndpointDetail, isListener } from './api.ts';
import type { Ctx } from './ctx.ts';
import type { Translator } from './i18n.ts';
import { Notice } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';
import { fieldErrorUnder } from './field-errors.ts';

type TlsShown = NonNullable<EndpointDetail['tls']>;
type TlsField = 'client_certificate' | 'client_key' | 'server_ca';

const DAY_MS = 86_400_000;
/** Under this many days left, the expiry is a warning (Wirehook's own expiry notice uses 14 too). */
const WARN_DAYS = 14;

/**
 * Mutual TLS (`tls`): the client certificate presented on every connection to the endpoint —
 * its subject, issuer, expiry (days left; a warning under 14 days, another once expired) and
 * fingerprint; a form to paste the certificate, its key (write-only: stored sealed, never shown
 * again) and an optional server CA; removal after a confirmation. The API's 422 goes under the
 * field it names (`tls.client_key: …`), else under the form. A listener (`wirehook listen`) makes
 * no TLS connection of ours to its receiver: it gets the reason instead of the form.
 */
export function TlsPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const shown = endpoint.tls ?? null;
  const listener = isListener(endpoint);
  const [open, setOpen] = useState(false);
  const [certificate, setCertificate] = useState('');
  const [key, setKey] = useState('');
  const [serverCa, setServerCa] = useState('');
  const { busy, notice, error, said, patch } = useEndpointPatch(ctx, endpoint.id, onChange);

  const fieldOf = (message: string | null): TlsField | null =>
    (/^tls\.(client_certificate|client_key|server_ca):/.exec(message ?? '')?.[1] as TlsField | undefined) ?? null;
  const errorField = fieldOf(error);
  const errorText = error === null ? null : fieldErrorUnder(t, error, /^tls\.[a-z_]+:\s*/);

  const close = () => {
    setOpen(false);
    setCertificate('');
    setKey('');
    setServerCa('');
  };
  const save = async (e: Event) => {
    e.preventDefault();
    const body = { client_certificate: certificate.trim(), client_key: key.trim(), ...(serverCa.trim() === '' ? {} : { server_ca: serverCa.trim() }) };
    // The key is not kept on the page once it is stored.
    if (await patch({ tls: body }, t.t('tlsSaved'))) close();
  };
  const remove = () => {
    if (shown !== null && confirm(t.t('tlsRemoveConfirm', { subject: shown.subject }))) void patch({ tls: null }, t.t('tlsRemoved'));
  };

  const area = (field: TlsField, label: string, help: string, value: string, set: (v: string) => void, required: boolean) => (
    <div class="field">
      <label for={`tls-${field}`}>{label}</label>
      <textarea
        id={`tls-${field}`}
        rows={5}
        value={value}
        required={required}
        spellcheck={false}
        autocomplete="off"
        placeholder={field === 'client_key' ? '-----BEGIN PRIVATE KEY-----' : '-----BEGIN CERTIFICATE-----'}
        aria-describedby={`tls-${field}-help${errorField === field ? ` tls-${field}-error` : ''}`}
        aria-invalid={errorField === field ? 'true' : undefined}
        onInput={(e) => set(e.currentTarget.value)}
      />
      <p id={`tls-${field}-help`} class="help">
        {help}
      </p>
      {errorField === field && (
        <p id={`tls-${field}-error`} class="field-error" role="alert">
          {errorText}
        </p>
      )}
    </div>
  );

  return (
    <section class="panel" aria-labelledby="tls-title">
      <h2 id="tls-title">{t.t('tls')}</h2>
      {listener ? <p class="help">{t.t('tlsListen')}</p> : <p class="help">{t.t('tlsHelp')}</p>}
      {shown === null ? !listener && !open && <p class="muted">{t.t('tlsNone')}</p> : <Certificate t={t} tls={shown} />}
      {!open && (
        <div class="row">
          {!listener && (
            <button type="button" disabled={busy} onClick={() => setOpen(true)}>
              {shown === null ? t.t('tlsAdd') : t.t('tlsReplace')}
            </button>
          )}
          {shown !== null && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              {t.t('tlsRemove')}
            </button>
          )}
        </div>
      )}
      {open && (
        <form class="form" onSubmit={save}>
          {area('client_certificate', t.t('tlsCertificate'), t.t('tlsCertificateHelp'), certificate, setCertificate, true)}
          {area('client_key', t.t('tlsKey'), t.t('tlsKeyHelp'), key, setKey, true)}
          {area('server_ca', t.t('tlsServerCaInput'), t.t('tlsServerCaHelp'), serverCa, setServerCa, false)}
          {error && errorField === null && (
            <p class="field-error" role="alert">
              {said}
            </p>
          )}
          <div class="row">
            <button type="submit" disabled={busy}>
              {busy ? t.t('saving') : t.t('tlsSave')}
            </button>
            <button type="button" class="link" disabled={busy} onClick={close}>
              {t.t('cancel')}
            </button>
          </div>
        </form>
      )}
      {!open && error && (
        <p class="field-error" role="alert">
          {said}
        </p>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
    </section>
  );
}

/** What the certificate says, its expiry with the days left (warned under 14 days and once expired; in words, not colour alone). */
function Certificate({ t, tls, now = Date.now() }: { t: Translator; tls: TlsShown; now?: number }) {
  const left = tls.not_after - now;
  const days = Math.ceil(left / DAY_MS);
  const expired = left <= 0;
  const soon = !expired && days < WARN_DAYS;
  return (
    <>
      <dl class="kv">
        <dt>{t.t('tlsSubject')}</dt>
        <dd>
          <code>{tls.subject}</code>
        </dd>
        <dt>{t.t('tlsIssuer')}</dt>
        <dd>
          <code>{tls.issuer}</code>
        </dd>
        <dt>{t.t('tlsExpires')}</dt>
        <dd>
          <time dateTime={new Date(tls.not_after).toISOString()}>{t.dateTime(tls.not_after)}</time>{' '}
          <span class={expired || soon ? 'bad' : 'muted'}>({expired ? t.t('tlsExpiredWord') : t.t('tlsDaysLeft', { count: days })})</span>
        </dd>
        <dt>{t.t('tlsFingerprint')}</dt>
        <dd>
          <code class="fingerprint">{tls.fingerprint_sha256}</code>
        </dd>
        <dt>{t.t('tlsServerCa')}</dt>
        <dd>{tls.server_ca_subject === null ? <span class="muted">{t.t('tlsServerCaNone')}</span> : <code>{tls.server_ca_subject}</code>}</dd>
      </dl>
      {expired && <Notice kind="error">{t.t('tlsExpired', { date: t.dateTime(tls.not_after) })}</Notice>}
      {soon && <Notice kind="warn">{t.t('tlsExpiresSoon', { count: days })}</Notice>}
    </>
  );
}
