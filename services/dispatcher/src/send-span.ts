import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { spansRecorded } from '@wirehook/core';
import type { DeliveryJob } from '@wirehook/store';
import type { SendResult } from './outcome.ts';

const TRACER = '@wirehook/dispatcher';

/**
 * Runs one webhook POST in a CLIENT span (HTTP semantic conventions), child of the active
 * span — the bus handler's `process wirehook.dispatch`, which continues the trace of the
 * request that created the message. The query string of the endpoint URL is never recorded
 * (receivers put tokens there). A failed attempt (non-2xx, or no response) fails the span.
 */
export function traceSend(job: DeliveryJob, url: string, send: () => Promise<SendResult>): Promise<SendResult> {
  if (!spansRecorded()) return send();
  const target = new URL(url);
  const attributes = {
    'http.request.method': 'POST',
    'url.full': `${target.origin}${target.pathname}`,
    'server.address': target.hostname,
    'server.port': Number(target.port || (target.protocol === 'http:' ? 80 : 443)),
    'wirehook.delivery_id': job.delivery.id,
    'wirehook.message_id': job.message.id,
    'wirehook.endpoint_id': job.endpoint.id,
  };
  return trace.getTracer(TRACER).startActiveSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const result = await send();
      if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
      if (result.sourceIp !== null) span.setAttribute('network.local.address', result.sourceIp);
      if (!result.ok) {
        // The status of a non-2xx answer; without one, the kind of `<kind>: <detail>` (timeout, dns, tls, …).
        span.setAttribute('error.type', result.status !== null ? String(result.status) : (result.error?.split(':')[0] ?? 'unknown'));
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `HTTP ${result.status}` });
      }
      return result;
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
