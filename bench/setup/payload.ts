/** The event type of every bench message (endpoints take every type). */
export const BENCH_EVENT_TYPE = 'bench.event';

/** A JSON object whose text is exactly `bytes` long (at least 32): the message payload. */
export function payloadJson(bytes: number): string {
  const empty = JSON.stringify({ kind: 'bench', pad: '' });
  if (bytes < empty.length) throw new RangeError(`payload must be at least ${empty.length} bytes`);
  return JSON.stringify({ kind: 'bench', pad: 'x'.repeat(bytes - empty.length) });
}

/** The body of POST /v1/messages for `consumer` carrying `payload` (JSON text). */
export function sendBody(consumer: string, payload: string): string {
  return `{"consumer":${JSON.stringify(consumer)},"event_type":"${BENCH_EVENT_TYPE}","payload":${payload}}`;
}
