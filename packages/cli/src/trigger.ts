// `wirehook trigger <event_type>`: sends one message to the listening consumer.
import { type Api, apiError, unreachableDetail } from './api.ts';

export interface TriggerOptions extends Api {
  eventType: string;
  /** JSON text; default a sample payload. */
  payload: string | undefined;
  /** A consumer's id (con_…) or external_id; default `wirehook-listen`. */
  consumer: string | undefined;
}

export async function trigger(options: TriggerOptions): Promise<number> {
  let payload: unknown;
  try {
    payload = options.payload === undefined ? { sample: true, sent_by: 'wirehook trigger' } : JSON.parse(options.payload);
  } catch {
    console.error('wirehook trigger: --payload is not valid JSON');
    return 2;
  }
  // As `listen` is refused one: a test tool must not send a live (billed) message to a live consumer.
  if (options.apiKey.startsWith('sk_live_')) {
    console.error('wirehook trigger: a live API key (sk_live_…) is refused: trigger sends test messages; use a test-environment key (sk_test_…)');
    return 2;
  }
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };
  let externalId = options.consumer ?? 'wirehook-listen';
  // Messages name their consumer by external_id: look an id up.
  if (/^con_/.test(externalId)) {
    const res = await reach(options.apiUrl, `/v1/consumers/${encodeURIComponent(externalId)}`, { headers });
    if (typeof res === 'string') return fail(res);
    if (!res.ok) return fail(await apiError(res));
    externalId = ((await res.json()) as { external_id: string }).external_id;
  }
  const res = await reach(options.apiUrl, '/v1/messages', {
    method: 'POST',
    headers,
    body: JSON.stringify({ consumer: externalId, event_type: options.eventType, payload }),
  });
  if (typeof res === 'string') return fail(res);
  if (!res.ok) return fail(await apiError(res));
  const message = (await res.json()) as { id: string };
  console.log(`sent ${options.eventType} ${message.id} to consumer ${externalId}`);
  return 0;
}

/** fetch's answer, or why none came (a refused connection, a bad port, …), naming the API's address. */
async function reach(apiUrl: string, path: string, init: RequestInit): Promise<Response | string> {
  try {
    return await fetch(`${apiUrl}${path}`, init);
  } catch (err) {
    return `the API at ${apiUrl} could not be reached (${unreachableDetail(err, apiUrl)}); WIREHOOK_API_URL names it`;
  }
}

function fail(problem: string): number {
  console.error(`wirehook trigger: ${problem}`);
  return 1;
}
