import type { Server } from 'node:http';
import { nodeHttp } from '@wirehook/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Component } from './lifecycle.ts';
import { checkReadiness, type Readiness, type ReadinessCheck } from './readiness.ts';

/** The HTTP metrics every API-serving process exports. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status_class'>;
  duration: Histogram<'method' | 'route'>;
  rateLimited: Counter;
  rateLimitUnavailable: Counter;
}

/**
 * How often Node's event-loop delay is sampled for `nodejs_eventloop_lag_*` (prom-client's
 * `eventLoopMonitoringPrecision`; its default is 10 ms). Each sample is a timer that wakes the
 * process: at 10 ms an idle service spent 1.75–3 ms of its 5–8 ms of CPU a second on them, an
 * idle cluster's ten processes 44–52 ms a second in all, 29–33 at 50 (docs/benchmarks.md,
 * forty-third session). Node records the time between two samples, so every value of the
 * histogram series is this period plus the loop's delay: ≈ 0.05 s when idle (docs/operations.md).
 */
export const EVENT_LOOP_DELAY_RESOLUTION_MS = 50;

/**
 * A process's registry: Node's default metrics, and a `service` label on every series
 * (`gateway`, `dispatcher`, … or `wirehook` in embedded mode) so series stay apart when
 * one Prometheus job scrapes several services. The replica is Prometheus' `instance`.
 */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // Node's metrics under their standard names (process_*, nodejs_*): stock dashboards work.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_DELAY_RESOLUTION_MS });
  dropTotalGauges(registry);
  return registry;
}

/**
 * prom-client adds three gauges named `…_total`, which only counters may end with (promtool
 * check metrics refuses them). The same counts stay, by type, in nodejs_active_handles,
 * nodejs_active_requests and nodejs_active_resources: the totals are their sums.
 */
function dropTotalGauges(registry: Registry): void {
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
}

/** The HTTP API's metrics, in `registry`: only processes that serve the API have them. */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    registry,
    requests: new Counter({
      name: 'wirehook_http_requests_total',
      help: 'API requests by method, route template and status class',
      labelNames: ['method', 'route', 'status_class'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'wirehook_http_request_duration_seconds',
      help: 'API request duration by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'wirehook_rate_limit_rejections_total',
      help: 'Requests answered 429 rate_limited',
      registers: [registry],
    }),
    rateLimitUnavailable: new Counter({
      name: 'wirehook_rate_limit_unavailable_total',
      help: 'Requests let through uncounted because the rate-limit store was unreachable',
      registers: [registry],
    }),
  };
}

/** The idempotency front's counters (cluster-mode gateway and portal, services/gateway/src/idempotency-front.ts). */
export interface IdempotencyFrontMetrics {
  replays: Counter;
  waits: Counter<'outcome'>;
  redisErrors: Counter;
}

/** The idempotency front's counters, in `registry`. */
export function createIdempotencyFrontMetrics(registry: Registry): IdempotencyFrontMetrics {
  return {
    replays: new Counter({
      name: 'wirehook_idempotency_replays_total',
      help: 'Sends with an Idempotency-Key answered from Redis with the first answer, without calling message-intake',
      registers: [registry],
    }),
    waits: new Counter({
      name: 'wirehook_idempotency_waits_total',
      help:
        'Sends that waited for a concurrent send of the same Idempotency-Key, by outcome: answered (its answer), ' +
        'released (it failed; on to message-intake), timed_out and unavailable (Redis failed) (on to message-intake)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    redisErrors: new Counter({
      name: 'wirehook_idempotency_redis_errors_total',
      help: 'Redis calls of the idempotency front that failed (the send went on to message-intake, whose store decides)',
      registers: [registry],
    }),
  };
}

/**
 * `wirehook_readiness_check_up{check, gates}`: 1 when the check answered, 0 when not, one
 * series per check the last `/readyz` ran (the kubelet's readiness probe runs it every few
 * seconds), so a dependency that does not gate (`gates="false"`, e.g. Redis) is still seen
 * going down. Not run at scrape time: a scrape stays free of store and NATS calls.
 */
function readinessGauge(registry: Registry): (checks: readonly ReadinessCheck[], result: Readiness) => void {
  const gauge = new Gauge({
    name: 'wirehook_readiness_check_up',
    help: 'Whether each check of the last /readyz answered (1) or not (0); with gates false the pod stays ready without it (degraded)',
    labelNames: ['check', 'gates'],
    registers: [registry],
  });
  return (checks, result) => {
    // Reset first: a check gone since (`starting`) must not stay at 0.
    gauge.reset();
    for (const check of checks) gauge.set({ check: check.name, gates: String(check.gates) }, result.checks[check.name] === 'ok' ? 1 : 0);
  };
}

/** Whether a process is still starting (waiting for a dependency at start), running, or stopping (draining, no longer ready). */
export interface ProcessState {
  state: 'starting' | 'running' | 'stopping';
}

/**
 * Serves, on its own port: `GET /metrics` for Prometheus; `GET /livez` (the process serves:
 * always 200, with its pid and whether it is `starting`, `running` or `stopping`; `/healthz` is the same, kept
 * for existing probes); `GET /readyz` (every gating check in `readiness` answers: 200, else
 * 503; each check's state by name either way, those that do not gate included). `readiness` is read at each request: checks added
 * after the server started count.
 */
export function metricsServer(
  registry: Registry,
  port: number,
  host = '0.0.0.0',
  readiness: readonly ReadinessCheck[] = [],
  process_: ProcessState = { state: 'running' },
): Component & { server: Server } {
  const setReadiness = readinessGauge(registry);
  const server = nodeHttp().createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/livez' || req.url === '/healthz')) {
      // The pid lets a launcher tell its own child from another process holding the port.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', pid: process.pid, state: process_.state }));
    } else if (req.method === 'GET' && req.url === '/readyz') {
      const checking = [...readiness];
      void checkReadiness(checking).then((result) => {
        setReadiness(checking, result);
        const { ready, checks } = result;
        res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ready ? 'ready' : 'not ready', checks }));
      });
    } else if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; metrics are at /metrics\n');
    }
  });
  return {
    name: 'metrics',
    server,
    start: () =>
      new Promise((resolve, reject) => {
        // A taken port is a configuration problem: name the variable, not an unhandled 'error' event.
        server.once('error', (err: NodeJS.ErrnoException) =>
          reject(new Error(`METRICS_PORT ${port} on ${host} cannot be used: ${err.code ?? err.message}`, { cause: err })),
        );
        server.listen(port, host, () => resolve());
      }),
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
