import { useState } from 'preact/hooks';
import { type Endpoint, type EventTypeSummary, isListener } from './api.ts';
import './event-catalog.css';
import type { Translator } from './i18n.ts';
import { hashOf } from './routes.ts';
import { Pill } from './ui.tsx';

export interface EndpointInput {
  url: string;
  description: string;
  eventTypes: string[] | null;
  retry: { count: number; interval: string };
  /** The OAuth client secret given again: only when the URL moves an endpoint with OAuth to another origin. */
  clientSecret?: string;
}

/** A URL's origin, or null while what is typed is no URL yet. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

const COUNTS = [0, 1, 2, 3, 5, 7, 12];
const INTERVALS = ['progressive', '1m', '5m', '30m', '1h', '6h'];

/**
 * URL, description, event types (from the sender's registry, each linked to its catalog entry) and retries: create and edit. A
 * listener's URL (where `wirehook listen` forwards) is shown, not offered for editing.
 */
export function EndpointForm(props: {
  t: Translator;
  eventTypes: EventTypeSummary[];
  initial: Endpoint | null;
  busy: boolean;
  /** The API's message per field (422), shown next to it. */
  fieldErrors: Record<string, string>;
  /**
   * The origin an endpoint's OAuth client secret was given for (null: no OAuth): its tokens go
   * only there, so a URL of another origin asks for the secret again (the API's rule).
   */
  oauthOrigin?: string | null;
  submitLabel: string;
  onSubmit(input: EndpointInput): void;
  onCancel?: () => void;
}) {
  const { t, eventTypes, initial, fieldErrors } = props;
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [chosen, setChosen] = useState<string[] | null>(initial?.event_types ?? null);
  const [search, setSearch] = useState('');
  const [count, setCount] = useState<number>(initial?.retry.count ?? 7);
  const [interval, setInterval] = useState<string>(initial?.retry.interval ?? 'progressive');
  const [clientSecret, setClientSecret] = useState('');
  const movedOrigin = props.oauthOrigin ? originOf(url) : null;
  const asksSecret = movedOrigin !== null && movedOrigin !== props.oauthOrigin;
  const shown = eventTypes.filter((e) => `${e.name} ${e.description ?? ''}`.toLowerCase().includes(search.toLowerCase()));
  const listener = initial !== null && isListener(initial);
  const toggle = (name: string) => setChosen((c) => ((c ?? []).includes(name) ? (c ?? []).filter((n) => n !== name) : [...(c ?? []), name]));

  return (
    <form
      class="form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit({ url, description, eventTypes: chosen, retry: { count, interval }, ...(asksSecret ? { clientSecret } : {}) });
      }}
    >
      {listener ? (
        <div class="field">
          <p class="field-name">{t.t('forwardsTo')}</p>
          <code class="url">{url}</code>
          <p class="help">{t.t('listenUrlHelp')}</p>
        </div>
      ) : (
        <div class="field">
          <label for="ep-url">{t.t('url')}</label>
          <input
            id="ep-url"
            type="url"
            required
            value={url}
            placeholder="https://"
            aria-describedby="ep-url-help ep-url-error"
            aria-invalid={fieldErrors['url'] ? 'true' : undefined}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <p id="ep-url-help" class="help">
            {t.t('urlHelp')}
          </p>
          <FieldError id="ep-url-error" text={fieldErrors['url']} />
        </div>
      )}
      {asksSecret && (
        <div class="field">
          <label for="ep-client-secret">{t.t('movedClientSecret')}</label>
          <input
            id="ep-client-secret"
            type="password"
            required
            autoComplete="off"
            value={clientSecret}
            aria-describedby="ep-client-secret-help ep-client-secret-error"
            aria-invalid={fieldErrors['auth'] ? 'true' : undefined}
            onInput={(e) => setClientSecret(e.currentTarget.value)}
          />
          <p id="ep-client-secret-help" class="help">
            {t.t('movedClientSecretHelp', { origin: movedOrigin })}
          </p>
          <FieldError id="ep-client-secret-error" text={fieldErrors['auth']} />
        </div>
      )}
      <div class="field">
        <label for="ep-description">{t.t('description')}</label>
        <input
          id="ep-description"
          type="text"
          maxLength={200}
          value={description}
          aria-describedby="ep-description-error"
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <FieldError id="ep-description-error" text={fieldErrors['description']} />
      </div>
      <fieldset class="field">
        <legend>{t.t('eventTypes')}</legend>
        {eventTypes.length === 0 ? (
          <p class="help">{t.t('eventTypesNone')}</p>
        ) : (
          <>
            <label class="check">
              <input type="radio" name="ep-types" checked={chosen === null} onChange={() => setChosen(null)} /> {t.t('eventTypesAll')}
            </label>
            <label class="check">
              <input type="radio" name="ep-types" checked={chosen !== null} onChange={() => setChosen([])} /> {t.t('eventTypesChoose')}
            </label>
            {chosen !== null && (
              <div class="types">
                {eventTypes.length > 8 && (
                  <input
                    type="search"
                    aria-label={t.t('eventTypesSearch')}
                    placeholder={t.t('eventTypesSearch')}
                    value={search}
                    onInput={(e) => setSearch(e.currentTarget.value)}
                  />
                )}
                {shown.map((e) => (
                  <div key={e.name} class="type-choice">
                    <label class="check">
                      <input type="checkbox" checked={chosen.includes(e.name)} onChange={() => toggle(e.name)} />
                      <span>
                        <code>{e.name}</code>
                        {e.deprecated && (
                          <>
                            {' '}
                            <Pill kind="deprecated">{t.t('catalogDeprecated')}</Pill>
                          </>
                        )}
                        {e.description && <span class="muted"> — {e.description}</span>}
                      </span>
                    </label>
                    {/* Which type, for a screen reader's list of links (said after the visible words, WCAG 2.5.3). */}
                    <a href={hashOf({ name: 'catalog', entry: e.name })}>
                      {t.t('catalogWhatsIn')}
                      <span class="sr-only">{t.t('catalogWhatsInWhich', { name: e.name })}</span>
                    </a>
                  </div>
                ))}
              </div>
            )}
          </>
        )}
        <FieldError text={fieldErrors['event_types']} />
      </fieldset>
      <fieldset class="field inline">
        <legend>{t.t('retryPolicy')}</legend>
        <label>
          {t.t('retryCount')}{' '}
          <select value={String(count)} onChange={(e) => setCount(Number(e.currentTarget.value))}>
            {COUNTS.map((c) => (
              <option key={c} value={String(c)}>
                {t.number(c)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.t('retryInterval')}{' '}
          <select value={interval} onChange={(e) => setInterval(e.currentTarget.value)}>
            {INTERVALS.map((i) => (
              <option key={i} value={i}>
                {i === 'progressive' ? t.t('intervalProgressive') : i}
              </option>
            ))}
          </select>
        </label>
        <FieldError text={fieldErrors['retry']} />
      </fieldset>
      <div class="row">
        <button type="submit" class="primary" disabled={props.busy} aria-busy={props.busy}>
          {props.busy ? t.t('saving') : props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            {t.t('cancel')}
          </button>
        )}
      </div>
    </form>
  );
}

/** A field's 422 under it (nothing when it has none); `id` for the field's aria-describedby. */
function FieldError({ id, text }: { id?: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} class="field-error">
      {text}
    </p>
  );
}
