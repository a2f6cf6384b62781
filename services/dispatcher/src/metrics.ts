import { type Backlog, type LaneStats, StaleBacklogError } from '@wirehook/store';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { MAX_BATCH_MESSAGES } from '@wirehook/bus';
import { SWEEP_REASONS } from './due-sweep.ts';
import { type Reuse, SCRAPE_REUSE, SCRAPE_WAIT_MS, ScrapedSource, type ScrapedSourceOptions } from './scraped-source.ts';

/** The dispatcher's metrics; no per-org, per-endpoint or per-URL labels. */
export interface DispatcherMetrics {
  attempts: Counter<'outcome' | 'via'>;
  attemptDuration: Histogram;
  deliveryLatency: Histogram;
  waiting: Gauge;
  inFlight: Gauge;
  completing: Gauge;
  tenantHolds: Counter;
  /** Set at each scrape from what `heldNow` reads (the Dispatcher gives it its holds). */
  tenantsHeld: ScrapedCount;
  sweeps: Counter<'reason'>;
  overTenantShare: Counter;
  storeErrors: Counter<'operation'>;
  staleCompletions: Counter;
  unsealErrors: Counter;
  transformations: Counter<'result'>;
  transformationDuration: Histogram;
}

/**
 * How long a dispatcher that shares its store with others (cluster mode) reuses one read of
 * the store-wide backlog, however often it is scraped: every replica reads the same numbers
 * (MongoDB: one point read of the shared count; SQLite shared by processes: a count of up to
 * BACKLOG_COUNT_CAP index keys). Prometheus
 * scrapes every 15 s or more, so a scrape still sees a fresh read. (Embedded mode, one
 * process on its own SQLite file, reads at each scrape.)
 */
export const BACKLOG_REUSE_MS = 5_000;

/** How a dispatcher reuses its backlog reads: once per BACKLOG_REUSE_MS when it shares the store, else per scrape. */
export function backlogReuse(soleDispatcher: boolean): Reuse {
  return soleDispatcher ? SCRAPE_REUSE : { ...SCRAPE_REUSE, ms: BACKLOG_REUSE_MS };
}

/**
 * Gauges read from one source at each scrape (ScrapedSource: one read at a time, shared, and a
 * scrape that waits for it at most SCRAPE_WAIT_MS). A source with no answer leaves a gauge as
 * it was, or NaN with `onFailure: 'unknown'` (never a made-up 0). @returns the source.
 */
function scrapedGauges<T>(
  registry: Registry,
  read: () => Promise<T>,
  gauges: { name: string; help: string; value: (t: T) => number }[],
  options: ScrapedSourceOptions<T> = {},
): ScrapedSource<T> {
  const source = new ScrapedSource(read, options);
  const unknown = options.onFailure === 'unknown';
  for (const g of gauges) {
    new Gauge({
      name: g.name,
      help: g.help,
      registers: [registry],
      async collect() {
        const t = await source.get();
        if (t !== null) this.set(g.value(t));
        else if (unknown) this.set(Number.NaN);
      },
    });
  }
  return source;
}

/**
 * The queue as an SRE pages on it, read from the store at each scrape, or once per `reuse`
 * (every replica reports the same store-wide numbers: use max() across replicas): deliveries
 * due now, how late the oldest is, deliveries waiting to retry. No tenant or endpoint labels.
 * Until a read succeeds, and after one fails or outlasts SCRAPE_WAIT_MS, the three read NaN
 * (unknown: max() across replicas takes the others', and a stale lag pages no one);
 * wirehook_deliveries_backlog_read_failures_total counts those reads and
 * wirehook_deliveries_backlog_read_timestamp_seconds dates the last good one (or the start,
 * before one), for WirehookBacklogUnread. `failed` hears each failure (the log).
 */
export function registerBacklogMetrics(
  registry: Registry,
  backlog: () => Promise<Backlog>,
  now: () => number,
  options: { reuse?: Reuse; failed?: (err: Error, again: boolean) => void; succeeded?: () => void } = {},
): void {
  // From the start until a read succeeds, the start: "not read for N minutes" counts from it.
  let lastReadAt = now() / 1000;
  let failures = 0;
  const source = scrapedGauges(
    registry,
    backlog,
    [
      { name: 'wirehook_deliveries_due', help: 'Deliveries due now and not yet sent (the queue depth), store-wide; NaN: unknown', value: (b) => b.due },
      {
        name: 'wirehook_deliveries_oldest_due_age_seconds',
        help: 'How long the oldest due delivery had been due when counted (the queue lag); 0 when none is due; NaN: unknown',
        // As of the count: one shared and up to a minute old would otherwise age by the wait,
        // though its oldest may have gone out since (the timestamp gauge tells the count's age).
        value: (b) => (b.oldestDueAt === null ? 0 : Math.max(0, ((b.countedAt ?? now()) - b.oldestDueAt) / 1000)),
      },
      { name: 'wirehook_deliveries_retrying', help: 'Deliveries waiting for their next retry, store-wide; NaN: unknown', value: (b) => b.retrying },
    ],
    {
      reuse: options.reuse,
      onFailure: 'unknown',
      // A count another process made and shared is as old as when it was made.
      succeeded: (b) => {
        lastReadAt = (b.countedAt ?? now()) / 1000;
        options.succeeded?.();
      },
      failed: (err, again) => {
        if (!again) failures += 1;
        // A count too old to show tells when it was made: dated by it, not by this process's start.
        if (err instanceof StaleBacklogError) lastReadAt = err.countedAt / 1000;
        options.failed?.(err, again);
      },
    },
  );
  // Collected after the scrape's read, so a scrape shows the read it made.
  new Gauge({
    name: 'wirehook_deliveries_backlog_read_timestamp_seconds',
    help: 'When the backlog the gauges show was counted (Unix seconds; before the first count read, when the dispatcher started)',
    registers: [registry],
    async collect() {
      await source.get();
      this.set(lastReadAt);
    },
  });
  new Counter({
    name: 'wirehook_deliveries_backlog_read_failures_total',
    help: `Reads of the backlog gauges that failed or took longer than ${SCRAPE_WAIT_MS / 1000} s (the gauges read NaN until one succeeds)`,
    registers: [registry],
    async collect() {
      await source.get();
      this.reset();
      this.inc(failures);
    },
  });
}

/**
 * Ordered lanes as an SRE watches them, read from the store at each scrape (store-wide,
 * like the backlog: use max() across replicas): lanes with a head, lanes whose head waits for
 * a retry (each holds its key's later messages), and how old the oldest head is. No labels.
 */
export function registerLaneMetrics(registry: Registry, lanes: () => Promise<LaneStats>, now: () => number, reuse?: Reuse): void {
  scrapedGauges(
    registry,
    lanes,
    [
      {
        name: 'wirehook_ordered_lanes_open',
        help: 'Ordered lanes (endpoint and ordering key) with a delivery open at their head, store-wide',
        value: (l) => l.open,
      },
      {
        name: 'wirehook_ordered_lanes_blocked',
        help: 'Ordered lanes whose head waits for a retry, holding the later messages of its key, store-wide',
        value: (l) => l.blocked,
      },
      {
        name: 'wirehook_ordered_lane_oldest_head_age_seconds',
        help: 'Age of the oldest open lane head since its message was accepted; 0 when no lane is open',
        value: (l) => (l.oldestHeadAt === null ? 0 : Math.max(0, (now() - l.oldestHeadAt) / 1000)),
      },
    ],
    // Store-wide, as the backlog: a dispatcher sharing its store reads it at most once per BACKLOG_REUSE_MS, however often scraped.
    reuse === undefined ? {} : { reuse },
  );
}

/**
 * The egress thread's restarts (embedded mode): each means a thread ended or stopped answering
 * and its sends were put off (docs/operations.md). Read from the thread's own count at a scrape.
 */
export function registerEgressThreadMetrics(registry: Registry, starts: () => number): void {
  new Counter({
    name: 'wirehook_egress_thread_restarts_total',
    help: 'Egress threads started again after one ended or stopped answering (embedded mode); the sends it held were put off',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(Math.max(0, starts() - 1));
    },
  });
}

/** `counter` with a series at 0 for each of `reasons`: a rate over the first one counts it. */
function zeroed<R extends string>(counter: Counter<'reason'>, reasons: readonly R[]): Counter<'reason'> {
  for (const reason of reasons) counter.inc({ reason }, 0);
  return counter;
}

/** A gauge read at each scrape from a count its owner gives it once built (0 until then). */
export class ScrapedCount {
  #read: () => number = () => 0;

  constructor(registry: Registry, name: string, help: string) {
    const count = this;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(count.#read());
      },
    });
  }

  /** What the gauge reads from now on. */
  readFrom(read: () => number): void {
    this.#read = read;
  }
}

export function createDispatcherMetrics(registry: Registry): DispatcherMetrics {
  return {
    attempts: new Counter({
      name: 'wirehook_delivery_attempts_total',
      help:
        'Delivery attempts by outcome (success, http_3xx/4xx/5xx, timeout, connection, tls, dns, blocked, relay, auth, transformation, cancelled, ' +
        'internal) and via (direct, relay, listen)',
      labelNames: ['outcome', 'via'],
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: 'wirehook_delivery_attempt_duration_seconds',
      help: 'Duration of one outbound webhook POST',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'wirehook_delivery_latency_seconds',
      help: 'From message accepted to successful delivery',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600, 86400],
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'wirehook_dispatch_waiting_deliveries',
      help: 'Due deliveries waiting here for a free endpoint slot',
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'wirehook_dispatch_in_flight_deliveries',
      help: 'Deliveries being sent right now',
      registers: [registry],
    }),
    completing: new Gauge({
      name: 'wirehook_dispatch_completing_deliveries',
      help: 'Answered deliveries whose attempt is being written, their place given back already',
      registers: [registry],
    }),
    tenantHolds: new Counter({
      name: 'wirehook_dispatch_tenant_holds_total',
      help:
        "Holds of a tenant's new work (its due deliveries left in the store 250 ms, doubling to 4 s) after the store refused " +
        'its claim, completion or release for overload (MongoDB: admission control, time limits)',
      registers: [registry],
    }),
    tenantsHeld: new ScrapedCount(
      registry,
      'wirehook_dispatch_tenants_held',
      'Tenants whose new work this dispatcher holds now (a hold of wirehook_dispatch_tenant_holds_total not yet over): their due deliveries wait in the store',
    ),
    sweeps: zeroed(
      new Counter({
        name: 'wirehook_dispatch_sweeps_total',
        help:
          'Sweeps that read the store for due deliveries, by what asked: start, interval (the timer), behind (places freed with more due), ' +
          "refill (an endpoint's queue or a tenant's share drained with more in the store), put_off (a Retry-After, a limit or a hold ended), manual",
        labelNames: ['reason'],
        registers: [registry],
      }),
      SWEEP_REASONS,
    ),
    overTenantShare: new Counter({
      name: 'wirehook_dispatch_over_tenant_share_total',
      help:
        "Deliveries woken or claimed while their tenant held its share of this dispatcher's places (DISPATCH_PLACES_PER_TENANT): " +
        'left in the store unclaimed, or given back due now; no attempt',
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: 'wirehook_dispatch_store_errors_total',
      help: 'Deliveries whose store call of the dispatcher failed (claim, alone or with its call; release; complete); the sweep finds each again',
      labelNames: ['operation'],
      registers: [registry],
    }),
    staleCompletions: new Counter({
      name: 'wirehook_dispatch_stale_completions_total',
      help: 'Attempts whose delivery was claimed again (lease ran out) or closed while they were sent: recorded, state not overwritten',
      registers: [registry],
    }),
    unsealErrors: new Counter({
      name: 'wirehook_dispatch_unseal_errors_total',
      help: "Sends put off because this process's key ring (WIREHOOK_SECRET_KEY) does not open the endpoint's signing secret; no attempt is recorded",
      registers: [registry],
    }),
    transformations: new Counter({
      name: 'wirehook_transformations_total',
      help: 'Endpoint transformations before a send, by result: send, cancel ({cancel: true}), error (failed), put_off (no sandbox free soon enough)',
      labelNames: ['result'],
      registers: [registry],
    }),
    transformationDuration: new Histogram({
      name: 'wirehook_transformation_duration_seconds',
      help: 'One endpoint transformation: its wait for a sandbox thread, the run (at most its 50 ms CPU budget) and the checks of what it returned',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
}

/** The metric label for an attempt: `success`, `http_5xx`, or the error kind before the colon. */
export function outcomeLabel(result: { ok: boolean; status: number | null; error: string | null }): string {
  if (result.ok) return 'success';
  if (result.status !== null) return `http_${Math.floor(result.status / 100)}xx`;
  return result.error?.split(':')[0] ?? 'internal';
}

/** JetStream's view of the dispatch consumer (cluster mode): pending, unacknowledged, redelivered. */
export function registerConsumerMetrics(registry: Registry, backlog: () => Promise<{ pending: number; ackPending: number; redelivered: number }>): void {
  scrapedGauges(registry, backlog, [
    {
      name: 'wirehook_jetstream_consumer_pending',
      help: `JetStream messages of dispatch jobs (one or a batch of up to ${MAX_BATCH_MESSAGES}) not yet handed to a dispatcher`,
      value: (b) => b.pending,
    },
    {
      name: 'wirehook_jetstream_consumer_ack_pending',
      help: 'JetStream messages of dispatch jobs handed out and not yet acknowledged',
      value: (b) => b.ackPending,
    },
    {
      name: 'wirehook_jetstream_consumer_redelivered',
      help: 'JetStream messages of dispatch jobs handed out more than once (a dispatcher died or was slow)',
      value: (b) => b.redelivered,
    },
  ]);
}
