import { useState } from 'preact/hooks';
import { type EndpointDetail, isListener } from './api.ts';
import type { Ctx } from './ctx.ts';
import type { Translator } from './i18n.ts';
import { fieldErrorText, fieldErrorUnder } from './field-errors.ts';
import { Notice } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';

/** The endpoint's `auth` as the API shows it: everything but the client secret, which is write-only. */
type OAuthShown = NonNullable<EndpointDetail['auth']>;
/** How the client secret reaches the token server (RFC 6749 §2.3.1). */
type TokenAuthMethod = OAuthShown['token_auth_method'];

type OAuthField = 'token_url' | 'client_id' | 'client_secret' | 'scope' | 'audience' | 'token_auth_method';
type Draft = Record<Exclude<OAuthField, 'token_auth_method'>, string> & { token_auth_method: TokenAuthMethod };

const METHODS: TokenAuthMethod[] = ['client_secret_basic', 'client_secret_post'];
const FIELD = /^auth\.(token_url|client_id|client_secret|scope|audience|token_auth_method):\s*/;

const draftOf = (shown: OAuthShown | null): Draft => ({
  token_url: shown?.token_url ?? '',
  client_id: shown?.client_id ?? '',
  client_secret: '',
  scope: shown?.scope ?? '',
  audience: shown?.audience ?? '',
  token_auth_method: shown?.token_auth_method ?? 'client_secret_basic',
});

/**
 * OAuth 2.0 client credentials (`auth`): Wirehook fetches an access token from the customer's
 * token server and sends it with every webhook. Shows the token URL, client id, scope, audience
 * and method (the secret is write-only: "stored, never shown again"); a form to set or replace
 * them, filled with what is stored, where an empty secret keeps the stored one (the API allows
 * that only while the token URL and client id are unchanged); removal after a confirmation. The
 * API's 422 goes under the field it names (`auth.client_id: …`), else under the form. A listener
 * (`wirehook listen`) sends to no receiver of the customer's: it gets the reason instead.
 */
export function OAuthPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const shown = endpoint.auth ?? null;
  const listener = isListener(endpoint);
  const [draft, setDraft] = useState<Draft | null>(null);
  const { busy, notice, error: apiError, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  // A refusal of a form the customer cancelled is not shown under the buttons afterwards.
  const [dismissed, setDismissed] = useState(false);
  const error = dismissed ? null : apiError;

  const errorField = (FIELD.exec(error ?? '')?.[1] as OAuthField | undefined) ?? null;
  const errorText = error === null ? null : fieldErrorUnder(t, error, FIELD);
  const said = error === null ? null : fieldErrorText(t, error);
  const set = (change: Partial<Draft>) => setDraft((d) => (d === null ? d : { ...d, ...change }));

  const save = async (e: Event) => {
    e.preventDefault();
    if (draft === null) return;
    const secret = draft.client_secret;
    const body = {
      type: 'oauth2_client_credentials',
      token_url: draft.token_url.trim(),
      client_id: draft.client_id.trim(),
      // Left out when empty: the API keeps the stored secret, or answers 422 naming the field.
      ...(secret === '' ? {} : { client_secret: secret }),
      scope: draft.scope.trim() === '' ? null : draft.scope.trim(),
      audience: draft.audience.trim() === '' ? null : draft.audience.trim(),
      token_auth_method: draft.token_auth_method,
    };
    setDismissed(false);
    // The secret leaves the page's state once stored: the form (and its value) is gone.
    if (await patch({ auth: body }, t.t('oauthSaved'))) setDraft(null);
  };
  const remove = () => {
    if (shown === null || !confirm(t.t('oauthRemoveConfirm', { url: shown.token_url }))) return;
    setDismissed(false);
    void patch({ auth: null }, t.t('oauthRemoved'));
  };
  const cancel = () => {
    setDraft(null);
    setDismissed(true);
  };

  const field = (name: Exclude<OAuthField, 'token_auth_method'>, label: string, input: { type: string; required: boolean }, help?: string) => {
    const described = [help ? `oauth-${name}-help` : '', errorField === name ? `oauth-${name}-error` : ''].filter(Boolean).join(' ');
    return (
      <div class="field">
        <label for={`oauth-${name}`}>{label}</label>
        <input
          id={`oauth-${name}`}
          type={input.type}
          value={draft?.[name] ?? ''}
          required={input.required}
          spellcheck={false}
          autocomplete={input.type === 'password' ? 'new-password' : 'off'}
          aria-describedby={described || undefined}
          aria-invalid={errorField === name ? 'true' : undefined}
          onInput={(e) => set({ [name]: e.currentTarget.value })}
        />
        {help && (
          <p id={`oauth-${name}-help`} class="help">
            {help}
          </p>
        )}
        {errorField === name && (
          <p id={`oauth-${name}-error`} class="field-error" role="alert">
            {errorText}
          </p>
        )}
      </div>
    );
  };

  return (
    <section class="panel" aria-labelledby="oauth-title">
      <h2 id="oauth-title">{t.t('oauth')}</h2>
      <p class="help">{listener ? t.t('oauthListen') : t.t('oauthHelp')}</p>
      {shown === null ? !listener && draft === null && <p class="muted">{t.t('oauthNone')}</p> : <OAuthDetails t={t} auth={shown} />}
      {draft === null && (
        <div class="row">
          {!listener && (
            <button type="button" disabled={busy} onClick={() => setDraft(draftOf(shown))}>
              {shown === null ? t.t('oauthAdd') : t.t('oauthEdit')}
            </button>
          )}
          {shown !== null && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              {t.t('oauthRemove')}
            </button>
          )}
        </div>
      )}
      {draft !== null && (
        <form class="form" onSubmit={save}>
          {field('token_url', t.t('oauthTokenUrl'), { type: 'url', required: true }, t.t('oauthTokenUrlHelp'))}
          {field('client_id', t.t('oauthClientId'), { type: 'text', required: true })}
          {field(
            'client_secret',
            t.t('oauthClientSecret'),
            { type: 'password', required: shown === null },
            shown === null ? t.t('oauthSecretHelp') : t.t('oauthSecretKeep'),
          )}
          {field('scope', t.t('oauthScopeInput'), { type: 'text', required: false }, t.t('oauthScopeHelp'))}
          {field('audience', t.t('oauthAudienceInput'), { type: 'text', required: false }, t.t('oauthAudienceHelp'))}
          <div class="field">
            <label for="oauth-token_auth_method">{t.t('oauthMethod')}</label>
            <select
              id="oauth-token_auth_method"
              value={draft.token_auth_method}
              aria-describedby={errorField === 'token_auth_method' ? 'oauth-token_auth_method-error' : undefined}
              onChange={(e) => set({ token_auth_method: e.currentTarget.value as TokenAuthMethod })}
            >
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {methodWord(t, m)}
                </option>
              ))}
            </select>
            {errorField === 'token_auth_method' && (
              <p id="oauth-token_auth_method-error" class="field-error" role="alert">
                {errorText}
              </p>
            )}
          </div>
          {error && errorField === null && (
            <p id="oauth-error" class="field-error" role="alert">
              {said}
            </p>
          )}
          <div class="row">
            <button type="submit" disabled={busy}>
              {busy ? t.t('saving') : t.t('oauthSave')}
            </button>
            <button type="button" class="link" disabled={busy} onClick={cancel}>
              {t.t('cancel')}
            </button>
          </div>
        </form>
      )}
      {draft === null && error && (
        <p class="field-error" role="alert">
          {said}
        </p>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
    </section>
  );
}

const methodWord = (t: Translator, method: TokenAuthMethod) => t.t(method === 'client_secret_basic' ? 'oauthMethodBasic' : 'oauthMethodPost');

/** What is stored, the secret only as a statement that it is. */
function OAuthDetails({ t, auth }: { t: Translator; auth: OAuthShown }) {
  const optional = (value: string | null) => (value === null ? <span class="muted">{t.t('oauthNotSet')}</span> : <code class="oauth-value">{value}</code>);
  return (
    <dl class="kv">
      <dt>{t.t('oauthTokenUrl')}</dt>
      <dd>
        <code class="oauth-value">{auth.token_url}</code>
      </dd>
      <dt>{t.t('oauthClientId')}</dt>
      <dd>
        <code class="oauth-value">{auth.client_id}</code>
      </dd>
      <dt>{t.t('oauthClientSecret')}</dt>
      <dd class="muted">{t.t('oauthSecretStored')}</dd>
      <dt>{t.t('oauthScope')}</dt>
      <dd>{optional(auth.scope)}</dd>
      <dt>{t.t('oauthAudience')}</dt>
      <dd>{optional(auth.audience)}</dd>
      <dt>{t.t('oauthMethod')}</dt>
      <dd>{methodWord(t, auth.token_auth_method)}</dd>
    </dl>
  );
}
