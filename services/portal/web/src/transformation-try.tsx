import type { TransformationSimulation } from '@wirehook/client/types';
import { Fragment } from 'preact';
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { api, ApiError, type EndpointDetail, type EventType } from './api.ts';
import type { Ctx } from './ctx.ts';
import { CopyButton } from './copy-button.tsx';
import type { Translator } from './i18n.ts';

/** A run of "Try it": the code that ran, and the line its error names (null: none named). */
export interface TryRun {
  code: string;
  line: number | null;
}

const NO_EXAMPLE = '{\n  "example": true\n}';

/** Where a run's error is, from its `(line L, column C)` ending (the sandbox's words); null when it names none. */
export function errorPosition(error: string): { line: number; column: number } | null {
  const match = /\(line (\d+), column (\d+)\)$/.exec(error);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

type Problem = { field: 'type' | 'payload' | 'form'; message: string };

/**
 * "Try it": runs `code` (the editor's, saved or not) on a webhook of an event type (chosen from
 * the endpoint's types or the catalog, typed when there is none) and a JSON payload (filled with
 * the type's first example from the catalog, until the customer edits it), through
 * POST /endpoints/{id}/transformation/simulate; nothing is sent. Shows the request that would be
 * sent (URL, headers, the body pretty-printed), a cancel, or the error with its line and column
 * and a button to that line in the editor. A payload that is not JSON is refused here, before
 * any call. A 422 naming `code` goes to the editor (`onCodeRefused`).
 */
export function TryIt(props: {
  ctx: Ctx;
  endpoint: EndpointDetail;
  code: string;
  onRun: (run: TryRun) => void;
  onCodeRefused: (refusal: { code: string; message: string } | null) => void;
  onShowLine: (line: number) => void;
}) {
  const { ctx, endpoint, code } = props;
  const { t } = ctx;
  const types = endpoint.event_types ?? ctx.eventTypes.map((e) => e.name);
  const [eventType, setEventType] = useState(types[0] ?? '');
  const [payload, setPayload] = useState(NO_EXAMPLE);
  /** The text last filled in for the customer: a payload still equal to it is not theirs yet. */
  const [filled, setFilled] = useState(NO_EXAMPLE);
  /** Each catalog type's first example as text (null: it has none), read once. */
  const [examples, setExamples] = useState<Record<string, string | null>>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ code: string; sim: TransformationSimulation } | null>(null);

  useEffect(() => {
    const name = eventType;
    if (name in examples || !ctx.eventTypes.some((e) => e.name === name)) return;
    api<EventType>('GET', `/event-types/${encodeURIComponent(name)}`).then(
      (detail) => {
        const example = detail.examples[0];
        setExamples((known) => ({ ...known, [name]: example === undefined ? null : JSON.stringify(example, null, 2) }));
      },
      (err: unknown) => {
        // An example is a convenience: without one the payload stays as it is (an ended link is the page's to say).
        if (err instanceof ApiError && err.status === 401) ctx.fail(err);
        else setExamples((known) => ({ ...known, [name]: null }));
      },
    );
  }, [eventType]);

  const example = examples[eventType] ?? null;
  const fill = (text: string) => {
    setPayload(text);
    setFilled(text);
  };
  // A layout effect: it runs in the render's own task, so the customer's next keystroke cannot
  // come between the render and this check and then be overwritten by a stale "not edited".
  useLayoutEffect(() => {
    // Only a payload the customer has not edited is replaced by the chosen type's example.
    if (payload === filled) fill(example ?? NO_EXAMPLE);
  }, [eventType, example]);

  const run = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    const name = eventType.trim();
    if (name === '') return setProblem({ field: 'type', message: t.t('tryEventTypeMissing') });
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch (err) {
      setResult(null);
      return setProblem({ field: 'payload', message: t.t('tryBadJson', { message: err instanceof Error ? err.message : String(err) }) });
    }
    setBusy(true);
    props.onCodeRefused(null);
    try {
      const sim = await api<TransformationSimulation>('POST', `/endpoints/${endpoint.id}/transformation/simulate`, { event_type: name, payload: body, code });
      setResult({ code, sim });
      props.onRun({ code, line: sim.error === null ? null : (errorPosition(sim.error)?.line ?? null) });
    } catch (err) {
      setResult(null);
      if (!(err instanceof ApiError) || err.status === 401) return ctx.fail(err);
      if (err.field === 'code') return props.onCodeRefused({ code, message: err.message.replace(/^code:\s*/, '') });
      setProblem({ field: err.field === 'payload' ? 'payload' : err.field === 'event_type' ? 'type' : 'form', message: err.message });
    } finally {
      setBusy(false);
    }
  };

  const errorOf = (field: Problem['field']) => (problem?.field === field ? problem.message : null);
  const fieldError = (field: Problem['field'], id: string) =>
    errorOf(field) && (
      <p id={id} class="field-error" role="alert">
        {errorOf(field)}
      </p>
    );
  return (
    <div class="try">
      <h3 id="try-title">{t.t('tryIt')}</h3>
      <p class="help">{t.t('tryItHelp')}</p>
      <form class="form" onSubmit={run} noValidate aria-labelledby="try-title">
        <div class="field">
          <label for="try-type">{t.t('tryEventType')}</label>
          {types.length > 0 ? (
            <select id="try-type" value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
              {types.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input
              id="try-type"
              type="text"
              value={eventType}
              placeholder="order.created"
              spellcheck={false}
              aria-invalid={errorOf('type') ? 'true' : undefined}
              aria-describedby={errorOf('type') ? 'try-type-error' : undefined}
              onInput={(e) => setEventType(e.currentTarget.value)}
            />
          )}
          {fieldError('type', 'try-type-error')}
        </div>
        <div class="field">
          <label for="try-payload">{t.t('tryPayload')}</label>
          <textarea
            id="try-payload"
            class="code-text"
            rows={8}
            value={payload}
            spellcheck={false}
            aria-invalid={errorOf('payload') ? 'true' : undefined}
            aria-describedby={errorOf('payload') ? 'try-payload-error' : undefined}
            onInput={(e) => setPayload(e.currentTarget.value)}
          />
          {fieldError('payload', 'try-payload-error')}
          {example !== null && payload !== example && (
            <button type="button" class="link" onClick={() => fill(example)}>
              {t.t('tryUseExample', { name: eventType })}
            </button>
          )}
        </div>
        {fieldError('form', 'try-error')}
        <div class="row">
          <button type="submit" disabled={busy}>
            {busy ? t.t('tryRunning') : t.t('tryRun')}
          </button>
        </div>
      </form>
      {result && <TryResult t={t} sim={result.sim} stale={result.code !== code} onShowLine={props.onShowLine} />}
    </div>
  );
}

/** What a run came to: the request, a cancel, or the error (its place in the code, and a way there while the code is the one that ran). */
function TryResult({ t, sim, stale, onShowLine }: { t: Translator; sim: TransformationSimulation; stale: boolean; onShowLine: (line: number) => void }) {
  const at = sim.error === null ? null : errorPosition(sim.error);
  return (
    <div class="try-result">
      {stale && <p class="help">{t.t('tryStale')}</p>}
      {sim.error !== null ? (
        <>
          <div class="notice notice-error" role="alert">
            <div>
              <p>{t.t('tryFailed')}</p>
              <p>
                <code>{sim.error}</code>
              </p>
              {at && <p>{t.t('tryAt', at)}</p>}
            </div>
          </div>
          {at && !stale && (
            <button type="button" class="link" onClick={() => onShowLine(at.line)}>
              {t.t('tryShowLine', { line: at.line })}
            </button>
          )}
        </>
      ) : sim.cancel || sim.request === null ? (
        <p class="notice notice-warn" role="status">
          {t.t('tryCancelled')}
        </p>
      ) : (
        <SentRequest t={t} request={sim.request} />
      )}
      <p class="help">{t.t('tryDuration', { n: sim.duration_ms })}</p>
    </div>
  );
}

function SentRequest({ t, request }: { t: Translator; request: NonNullable<TransformationSimulation['request']> }) {
  let body = request.body;
  try {
    body = JSON.stringify(JSON.parse(request.body), null, 2);
  } catch {
    // Shown as it would be sent.
  }
  return (
    <>
      <p class="notice notice-ok" role="status">
        {t.t('trySent')}
      </p>
      <dl class="kv">
        <dt>{t.t('tryUrl')}</dt>
        <dd>
          <code class="try-url">{request.url}</code>
        </dd>
      </dl>
      <h4>{t.t('tryHeaders')}</h4>
      <dl class="kv try-headers">
        {Object.entries(request.headers).map(([name, value]) => (
          <Fragment key={name}>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>
              <code>{value}</code>
            </dd>
          </Fragment>
        ))}
      </dl>
      <p class="help">{t.t('tryHeadersNote')}</p>
      <div class="row spread">
        <h4>{t.t('tryBody')}</h4>
        <CopyButton t={t} text={body} label={t.t('tryBody')} />
      </div>
      {/* Focusable: a keyboard can scroll a long body. */}
      <pre class="payload try-body" tabIndex={0}>
        <code>{body}</code>
      </pre>
    </>
  );
}
