import { Counter, type Registry } from 'prom-client';

/** An endpoint's class for throughput metrics: never its id (no per-endpoint labels). */
export type EndpointClass = 'rate_limited' | 'unlimited';

/** Throughput control's metrics, by endpoint class. */
export interface ThroughputMetrics {
  /** Sends put off because the receiver's Retry-After holds the endpoint. */
  held: Counter<'class'>;
  /** Sends put off by the endpoint's rate limit (`rate`) or its adaptive in-flight limit (`concurrency`). */
  throttled: Counter<'class' | 'reason'>;
  /** Changes of an endpoint's adaptive in-flight limit: `cut` (halved) or `grown` (one more). */
  concurrency: Counter<'class' | 'change'>;
}

export function createThroughputMetrics(registry: Registry): ThroughputMetrics {
  return {
    held: new Counter({
      name: 'wirehook_dispatch_held_total',
      help: "Sends put off until the receiver's Retry-After (a 429 or 503 held the endpoint), by endpoint class",
      labelNames: ['class'],
      registers: [registry],
    }),
    throttled: new Counter({
      name: 'wirehook_dispatch_throttled_total',
      help: 'Sends put off by an endpoint limit: reason rate (rate_limit) or concurrency (its adaptive in-flight limit), by endpoint class',
      labelNames: ['class', 'reason'],
      registers: [registry],
    }),
    concurrency: new Counter({
      name: 'wirehook_dispatch_concurrency_changes_total',
      help: 'Changes of endpoints’ adaptive in-flight limits: cut (halved on 429, 503 or a timeout) or grown (one more after a window of successes)',
      labelNames: ['class', 'change'],
      registers: [registry],
    }),
  };
}
