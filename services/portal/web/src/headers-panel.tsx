import { useState } from 'preact/hooks';
import type { EndpointDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { Notice } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';

/** The API's limits on `headers` (docs/semantics.md, "Custom headers"). */
const MAX_HEADERS = 20;
const MAX_BYTES = 4_096;

interface Row {
  id: number;
  name: string;
  value: string;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
const sameNames = (a: Record<string, string>, b: Record<string, string>) => {
  const x = Object.keys(a).sort();
  const y = Object.keys(b).sort();
  return x.length === y.length && x.every((name, i) => name === y[i]);
};

/**
 * Custom headers (`headers`), sent with every webhook. The API shows each value redacted and a
 * PATCH replaces the whole set, so a value the customer did not type on this page cannot be sent
 * again: changing the set means "Edit headers", where every value is entered (the names are
 * filled in; values typed earlier on this page too). Removing a single header without that is
 * offered only while the page knows every remaining value (the set was saved from this page);
 * "Remove all" needs no values. Limits (20 headers, 4,096 bytes) are counted as the customer types.
 */
export function HeadersPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const shown = endpoint.headers ?? null;
  /** The whole set as last saved from this page (names lower-case, as the API keeps them). */
  const [known, setKnown] = useState<Record<string, string> | null>(null);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [nextId, setNextId] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const { busy, notice, error, said, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  // Values are known only while the endpoint's names are the ones saved from here.
  const knownAll = known !== null && shown !== null && sameNames(known, shown) ? known : null;

  const newRows = (list: { name: string; value: string }[]) => {
    setRows(list.map((r, i) => ({ id: nextId + i, ...r })));
    setNextId(nextId + list.length);
  };
  const startEdit = () => {
    setProblem(null);
    const names = Object.keys(shown ?? {});
    newRows(names.length === 0 ? [{ name: '', value: '' }] : names.map((name) => ({ name, value: knownAll?.[name] ?? '' })));
  };
  const addRow = () => {
    setRows((r) => [...(r ?? []), { id: nextId, name: '', value: '' }]);
    setNextId(nextId + 1);
  };
  const setRow = (id: number, change: Partial<Row>) => setRows((r) => (r ?? []).map((row) => (row.id === id ? { ...row, ...change } : row)));
  const dropRow = (id: number) => setRows((r) => (r ?? []).filter((row) => row.id !== id));

  /** PATCHes the whole set (null: none) and remembers it as known. */
  const write = async (set: Record<string, string>, savedText: string) => {
    const empty = Object.keys(set).length === 0;
    if (await patch({ headers: empty ? null : set }, savedText)) {
      setKnown(empty ? null : Object.fromEntries(Object.entries(set).map(([name, value]) => [name.toLowerCase(), value])));
      setRows(null);
      return true;
    }
    return false;
  };

  const filled = (rows ?? []).filter((r) => r.name.trim() !== '' || r.value !== '');
  const bytes = filled.reduce((n, r) => n + utf8Bytes(r.name.trim()) + utf8Bytes(r.value), 0);
  const save = (e: Event) => {
    e.preventDefault();
    setProblem(null);
    if (filled.some((r) => r.name.trim() === '')) return setProblem(t.t('headersNameMissing'));
    const missing = filled.find((r) => r.value === '');
    if (missing) return setProblem(t.t('headersValueMissing', { name: missing.name.trim() }));
    if (filled.length > MAX_HEADERS) return setProblem(t.t('headersTooMany', { max: MAX_HEADERS }));
    if (bytes > MAX_BYTES) return setProblem(t.t('headersTooBig', { max: MAX_BYTES }));
    void write(Object.fromEntries(filled.map((r) => [r.name.trim(), r.value])), t.t('saved'));
  };
  const removeOne = (name: string) => {
    if (knownAll === null) return;
    const rest = Object.fromEntries(Object.entries(knownAll).filter(([n]) => n !== name));
    void write(rest, t.t('headerRemoved', { name }));
  };
  const removeAll = () => {
    if (confirm(t.t('headersRemoveAllConfirm'))) void write({}, t.t('headersRemovedAll'));
  };
  const message = problem ?? said;

  return (
    <section class="panel" aria-labelledby="headers-title">
      <h2 id="headers-title">{t.t('headers')}</h2>
      <p class="help">{t.t('headersHelp')}</p>
      {rows === null ? (
        <>
          {shown === null ? (
            <p class="muted">{t.t('headersNone')}</p>
          ) : (
            <ul class="plain kv-list" aria-label={t.t('headers')}>
              {Object.entries(shown).map(([name, value]) => (
                <li key={name} class="row">
                  <code>{name}</code>
                  <code class="muted" title={t.t('headersRedacted')}>
                    {value}
                  </code>
                  <span class="sr-only">{t.t('headersRedacted')}</span>
                  {knownAll !== null && (
                    <button type="button" class="link" disabled={busy} onClick={() => removeOne(name)}>
                      {t.t('headerRemove')}
                      <span class="sr-only"> {name}</span>
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          {shown !== null && knownAll === null && <p class="help">{t.t('headersOneAtATime')}</p>}
          <div class="row">
            <button type="button" disabled={busy} onClick={startEdit}>
              {shown === null ? t.t('headersAdd') : t.t('headersEdit')}
            </button>
            {shown !== null && (
              <button type="button" class="danger" disabled={busy} onClick={removeAll}>
                {t.t('headersRemoveAll')}
              </button>
            )}
          </div>
          {error && (
            <p class="field-error" role="alert">
              {said}
            </p>
          )}
        </>
      ) : (
        <form class="form" onSubmit={save} noValidate aria-describedby="headers-write-only">
          <p id="headers-write-only" class="notice notice-warn">
            {t.t('headersWriteOnly')}
          </p>
          {rows.map((row, i) => (
            <fieldset key={row.id} class="header-row">
              <legend class="sr-only">{t.t('headerN', { n: i + 1 })}</legend>
              <div class="field">
                <label for={`header-name-${row.id}`}>
                  <span aria-hidden="true">{t.t('headerName')}</span>
                  <span class="sr-only">{t.t('headerNameN', { n: i + 1 })}</span>
                </label>
                <input
                  id={`header-name-${row.id}`}
                  type="text"
                  value={row.name}
                  placeholder="x-api-key"
                  spellcheck={false}
                  autocomplete="off"
                  onInput={(e) => setRow(row.id, { name: e.currentTarget.value })}
                />
              </div>
              <div class="field">
                <label for={`header-value-${row.id}`}>
                  <span aria-hidden="true">{t.t('headerValue')}</span>
                  <span class="sr-only">{t.t('headerValueN', { n: i + 1 })}</span>
                </label>
                <input
                  id={`header-value-${row.id}`}
                  type="text"
                  value={row.value}
                  spellcheck={false}
                  autocomplete="off"
                  aria-describedby="headers-write-only"
                  aria-invalid={message !== null && row.value === '' && row.name !== '' ? 'true' : undefined}
                  onInput={(e) => setRow(row.id, { value: e.currentTarget.value })}
                />
              </div>
              <button type="button" class="link" onClick={() => dropRow(row.id)}>
                {t.t('headerRemove')}
                <span class="sr-only"> {t.t('headerN', { n: i + 1 })}</span>
              </button>
            </fieldset>
          ))}
          <p class={filled.length > MAX_HEADERS || bytes > MAX_BYTES ? 'bad small' : 'help'} aria-live="polite">
            {t.t('headersUsage', { count: filled.length, max: MAX_HEADERS, bytes, maxBytes: MAX_BYTES })}
          </p>
          <div class="row">
            <button type="button" disabled={filled.length >= MAX_HEADERS} onClick={addRow}>
              {t.t('headersAddRow')}
            </button>
          </div>
          {message && (
            <p id="headers-error" class="field-error" role="alert">
              {message}
            </p>
          )}
          <div class="row">
            <button type="submit" disabled={busy}>
              {busy ? t.t('saving') : t.t('headersSave')}
            </button>
            <button
              type="button"
              class="link"
              disabled={busy}
              onClick={() => {
                setRows(null);
                setProblem(null);
              }}
            >
              {t.t('cancel')}
            </button>
          </div>
        </form>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
    </section>
  );
}
