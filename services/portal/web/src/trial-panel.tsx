import { useState } from 'preact/hooks';
import { api, ApiError, type EndpointDetail, type MessageDetail } from './api.ts';
import type { Ctx } from './ctx.ts';
import { attemptResult } from './ui.tsx';

/** One message to this endpoint only; its attempt's result is shown inline when it comes. */
export function TrialPanel({ ctx, endpoint }: { ctx: Ctx; endpoint: EndpointDetail }) {
  const { t } = ctx;
  const types = endpoint.event_types ?? ctx.eventTypes.map((e) => e.name);
  const [eventType, setEventType] = useState(types[0] ?? 'test.message');
  const [payload, setPayload] = useState('{\n  "example": true\n}');
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'sent' } | { kind: 'done'; result: string } | { kind: 'error'; message: string }>({
    kind: 'idle',
  });

  const send = async (e: Event) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      setState({ kind: 'error', message: t.t('trialBadJson') });
      return;
    }
    try {
      const sent = await api<{ id: string }>('POST', `/endpoints/${endpoint.id}/test`, { event_type: eventType, payload: body });
      setState({ kind: 'sent' });
      // The attempt is made within moments: look for it a few times.
      for (let i = 0; i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const detail = await api<MessageDetail>('GET', `/messages/${sent.id}`);
        const attempt = detail.deliveries[0]?.attempts[0];
        if (attempt) return setState({ kind: 'done', result: attemptResult(t, attempt) });
      }
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setState({ kind: 'error', message: err.message });
      else ctx.fail(err);
    }
  };

  return (
    <div class="panel">
      <h2>{t.t('trial')}</h2>
      <p class="help">{t.t('trialHelp')}</p>
      <form class="form" onSubmit={send}>
        <div class="field">
          <label for="trial-type">{t.t('trialEventType')}</label>
          {types.length > 0 ? (
            <select id="trial-type" value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
              {types.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input id="trial-type" type="text" value={eventType} onInput={(e) => setEventType(e.currentTarget.value)} />
          )}
        </div>
        <div class="field">
          <label for="trial-payload">{t.t('trialPayload')}</label>
          <textarea id="trial-payload" rows={4} value={payload} aria-describedby="trial-state" onInput={(e) => setPayload(e.currentTarget.value)} />
        </div>
        <div class="row">
          <button type="submit">{t.t('trialSend')}</button>
        </div>
      </form>
      <p id="trial-state" role="status">
        {state.kind === 'sent' && t.t('trialSent')}
        {state.kind === 'done' && t.t('trialResult', { result: state.result })}
        {state.kind === 'error' && <span class="field-error">{state.message}</span>}
      </p>
    </div>
  );
}
