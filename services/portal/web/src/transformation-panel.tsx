import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type EndpointDetail, isListener } from './api.ts';
import { CodeEditor, showLine } from './code-editor.tsx';
import type { Ctx } from './ctx.ts';
import { TryIt, type TryRun } from './transformation-try.tsx';
import { Notice, Pill } from './ui.tsx';
import { useEndpointPatch } from './use-endpoint-patch.ts';
import './transformation.css';

/** What the editor holds when the endpoint has no transformation (issue #45's starter). */
export const STARTER_CODE = 'function handler(webhook) {\n  return webhook;\n}';
/** The API's limit on `transformation.code`, in UTF-8 bytes (docs/semantics.md, "Transformations"). */
const MAX_CODE_BYTES = 32_768;
const FIELD = /^transformation\.(code|enabled):\s*/;

const encoder = new TextEncoder();

/**
 * An endpoint's transformation (`transformation`): the customer's `function handler(webhook)`
 * run on each webhook before it is sent here. Whether one is set and enabled; an editor filled
 * with the stored code (else a starter) with its line numbers and a byte count against the
 * API's 32,768; "Enabled"; Save (PATCH) and Remove (after a confirmation). The API's 422 goes
 * under the field it names (`transformation.code: …`), else under the form; the count warns
 * while typing and the API has the last word. "Try it" runs the editor's code, saved or not, and
 * marks the line an error names. A listener may have one too: its code may not move its url.
 */
export function TransformationPanel({ ctx, endpoint, onChange }: { ctx: Ctx; endpoint: EndpointDetail; onChange: () => void }) {
  const { t } = ctx;
  const stored = endpoint.transformation ?? null;
  const [code, setCode] = useState(stored?.code ?? STARTER_CODE);
  const [enabled, setEnabled] = useState(stored?.enabled ?? true);
  // What is stored changed (saved or removed here, or read again): the editor shows it. Other
  // panels' reloads leave both values as they were, and so the customer's unsaved edits too.
  // A layout effect: the reset lands in the same task as the render, so no frame shows the new
  // state ("No transformation") beside the old code.
  useLayoutEffect(() => {
    setCode(stored?.code ?? STARTER_CODE);
    setEnabled(stored?.enabled ?? true);
  }, [stored?.code, stored?.enabled]);

  const textarea = useRef<HTMLTextAreaElement>(null);
  const { busy, notice, error: apiError, patch } = useEndpointPatch(ctx, endpoint.id, onChange);
  // The latest action's refusal is the one shown: a Save's (from the hook) or a Try it's (naming
  // `code`). One of the code is shown while the code is the one refused: the count says the rest.
  const [saveShown, setSaveShown] = useState(true);
  const [savedCode, setSavedCode] = useState<string | null>(null);
  const [tryCodeError, setTryCodeError] = useState<{ code: string; message: string } | null>(null);
  const [lastRun, setLastRun] = useState<TryRun | null>(null);

  const saveError = saveShown ? apiError : null;
  const errorField = FIELD.exec(saveError ?? '')?.[1] ?? null;
  const errorText = saveError?.replace(FIELD, '') ?? null;
  const codeError =
    errorField === 'code' ? (code === savedCode ? errorText : null) : tryCodeError !== null && tryCodeError.code === code ? tryCodeError.message : null;
  const bytes = encoder.encode(code).length;
  const over = bytes - MAX_CODE_BYTES;
  const dirty = stored !== null && (code !== stored.code || enabled !== stored.enabled);
  // An error's line is marked only in the code that ran: after an edit it may be another line.
  const markLine = lastRun !== null && lastRun.code === code ? lastRun.line : null;

  const save = (e: Event) => {
    e.preventDefault();
    setSaveShown(true);
    setSavedCode(code);
    setTryCodeError(null);
    void patch({ transformation: { code, enabled } }, t.t('transformationSaved'));
  };
  const remove = () => {
    if (stored === null || !confirm(t.t('transformationRemoveConfirm'))) return;
    setSaveShown(true);
    setTryCodeError(null);
    void patch({ transformation: null }, t.t('transformationRemoved'));
  };
  const codeRefused = (refusal: { code: string; message: string } | null) => {
    setSaveShown(false);
    setTryCodeError(refusal);
  };

  const describedBy = ['transformation-code-help', 'transformation-bytes', codeError ? 'transformation-code-error' : ''].filter(Boolean).join(' ');
  return (
    <section class="panel" aria-labelledby="transformation-title">
      <h2 id="transformation-title">{t.t('transformation')}</h2>
      <p class="help">{t.t('transformationHelp')}</p>
      {isListener(endpoint) && <p class="help">{t.t('transformationListen')}</p>}
      <p class="row">
        {stored === null ? (
          <span class="muted">{t.t('transformationNone')}</span>
        ) : (
          <>
            <Pill kind={stored.enabled ? 'active' : 'paused'}>{t.t(stored.enabled ? 'transformationOn' : 'transformationOff')}</Pill>
            <span class="muted">{t.t(stored.enabled ? 'transformationOnHelp' : 'transformationOffHelp')}</span>
          </>
        )}
        {dirty && <Pill kind="none">{t.t('transformationUnsaved')}</Pill>}
      </p>
      <form class="form transformation-form" onSubmit={save} noValidate>
        <div class="field">
          <label for="transformation-code">{t.t('transformationCode')}</label>
          <p id="transformation-code-help" class="help">
            {t.t('transformationSandbox')}
          </p>
          <CodeEditor
            id="transformation-code"
            value={code}
            onInput={setCode}
            markLine={markLine}
            textarea={textarea}
            describedBy={describedBy}
            invalid={over > 0 || codeError !== null}
          />
          <p id="transformation-bytes" class={over > 0 ? 'bad small' : 'help'}>
            {over > 0
              ? t.t('transformationBytesOver', { bytes, max: MAX_CODE_BYTES, count: over })
              : t.t('transformationBytes', { bytes, max: MAX_CODE_BYTES })}
          </p>
          {codeError && (
            <p id="transformation-code-error" class="field-error" role="alert">
              {codeError}
            </p>
          )}
        </div>
        <div class="field">
          <label class="check">
            <input
              type="checkbox"
              checked={enabled}
              aria-describedby={errorField === 'enabled' ? 'transformation-enabled-error' : undefined}
              onChange={(e) => setEnabled(e.currentTarget.checked)}
            />{' '}
            {t.t('transformationEnabled')}
          </label>
          {errorField === 'enabled' && (
            <p id="transformation-enabled-error" class="field-error" role="alert">
              {errorText}
            </p>
          )}
        </div>
        {saveError && errorField === null && (
          <p id="transformation-error" class="field-error" role="alert">
            {saveError}
          </p>
        )}
        <div class="row">
          <button type="submit" disabled={busy}>
            {busy ? t.t('saving') : t.t('transformationSave')}
          </button>
          {stored !== null && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              {t.t('transformationRemove')}
            </button>
          )}
        </div>
        {notice && <Notice kind="ok">{notice}</Notice>}
      </form>
      <TryIt
        ctx={ctx}
        endpoint={endpoint}
        code={code}
        onRun={setLastRun}
        onCodeRefused={codeRefused}
        onShowLine={(line) => textarea.current && showLine(textarea.current, line)}
      />
    </section>
  );
}
