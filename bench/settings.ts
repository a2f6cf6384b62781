/** How big each scenario is. `full` is `pnpm bench`; `smoke` is the test suite's seconds-long run. */
export interface BenchSettings {
  mode: 'full' | 'smoke';
  /** Requests in flight from the harness (the c=64). */
  concurrency: number;
  /** Bytes of each message's payload JSON. */
  payloadBytes: number;
  /** Measured runs per scenario (the report shows medians); backlog runs once. */
  runs: number;
  /** Business-plan orgs the load is spread over (20,000 requests a minute each). */
  orgs: number;
  /** Cluster mode's dispatcher replicas (DISPATCHERS, by `./dev start --cluster`'s rule: 2 unless set). */
  dispatchers: number;
  baseline: { warmup: number; count: number };
  /** Messages to consumers whose only endpoint is paused: everything of intake, nothing sent. */
  intake: { warmup: number; count: number; consumers: number };
  /**
   * 1 endpoint per message, over `consumers` consumers of 1 endpoint each; then `pacedCount` at
   * half the rate. `probeIdleMs`: how long the API probe measures Wirehook idle first.
   * `warming`: messages of one run before the measured ones, in e2e, cluster mode and the
   * floors, each on its process (and as many deliveries in fan-out: scenarios/fanout.ts): its JIT
   * compiles and its heap grows there, not in the runs whose CPU a delivery is set against the
   * targets (the run is kept: `warming` in records.ts).
   */
  e2e: { warmup: number; count: number; consumers: number; pacedCount: number; probeIdleMs: number; warming: number };
  /**
   * Issue 46's pace check: e2e's shape (1 endpoint per message over `consumers`) from `senders`
   * closed-loop senders, `warmup` then `count` messages a run, the backlog read every `sampleMs`.
   */
  pace: { warmup: number; count: number; consumers: number; senders: number; sampleMs: number };
  /** Each message to a consumer with 20 endpoints. */
  fanout: { warmup: number; messages: number; consumers: number };
  /** As e2e, with every other consumer's endpoint answering 500. */
  storm: { warmup: number; count: number; consumers: number };
  /** e2e-like load of `healthyTenants` tenants (`consumers` endpoints) beside one tenant's `backlog` for a hung endpoint. */
  noisy: { warmup: number; count: number; consumers: number; healthyTenants: number; backlog: number };
  /** `messages` × 20 endpoints queued behind paused endpoints, then released. */
  backlog: { messages: number; consumers: number };
  /**
   * Cluster mode with IDEMPOTENCY_FRONT off, then on: `keys` messages accepted with a key
   * each, `replays` re-sends of them (after `warmup`), then `bursts` 50-way duplicate bursts.
   */
  idempotency: { keys: number; warmup: number; replays: number; bursts: number };
  /** Ordered delivery (issue 31): `count` messages over `keys` ordering keys of one endpoint per drain; `pacedCount` per paced run. */
  ordered: { keys: number; count: number; pacedCount: number };
  /**
   * Throughput control (issue 32): `count` messages to a receiver of capacity 4, goodput from
   * `windowFromS` for `windowS`; `rateCount` each to a 10/s endpoint and an unlimited one.
   */
  capacity: { count: number; windowFromS: number; windowS: number; rateCount: number };
  /** Issue 40: another org's sends, one at a time, `warmup` then `count` alone and `count` beside the readers of the largest attempt history. */
  history: { warmup: number; count: number };
  /** Longest wait for a run's deliveries to arrive. */
  waitMs: number;
}

const FANOUT = 20;

/** The settings of a mode, with cluster mode's `dispatchers`. */
export function settingsFor(mode: 'full' | 'smoke', dispatchers: number): BenchSettings {
  const common = { concurrency: 64, payloadBytes: 1024, dispatchers };
  if (mode === 'smoke') {
    return {
      ...common,
      mode,
      runs: 1,
      orgs: 2,
      baseline: { warmup: 20, count: 200 },
      intake: { warmup: 10, count: 60, consumers: 4 },
      e2e: { warmup: 10, count: 60, consumers: 4, pacedCount: 30, probeIdleMs: 500, warming: 20 },
      pace: { warmup: 10, count: 1_000, consumers: 4, senders: 256, sampleMs: 10 },
      fanout: { warmup: 1, messages: 4, consumers: 2 },
      storm: { warmup: 10, count: 60, consumers: 4 },
      noisy: { warmup: 10, count: 60, consumers: 4, healthyTenants: 3, backlog: 200 },
      backlog: { messages: 10, consumers: 2 },
      idempotency: { keys: 40, warmup: 20, replays: 200, bursts: 3 },
      ordered: { keys: 10, count: 60, pacedCount: 40 },
      capacity: { count: 40, windowFromS: 0.5, windowS: 1, rateCount: 15 },
      history: { warmup: 10, count: 40 },
      waitMs: 30_000,
    };
  }
  return {
    ...common,
    mode,
    runs: 3,
    orgs: 16,
    baseline: { warmup: 2_000, count: 20_000 },
    intake: { warmup: 1_000, count: 8_000, consumers: 64 },
    // 48,000 warming messages: in e2e runs of a fresh process, the V8 helpers' CPU a delivery fell
    // until about the 54,000th message (100 → 32–43 µs; in all, 571 → 419–478: docs/benchmarks.md).
    // Under load of 64 senders; the runs' own warm-ups (1,000) come on top.
    e2e: { warmup: 1_000, count: 8_000, consumers: 64, pacedCount: 4_000, probeIdleMs: 5_000, warming: 48_000 },
    // Twice e2e's count: ≈ 5 s of sending, ≈ 20 readings of the backlog after the ramp-up, so its
    // growth is measured to about a percent of intake (report/backlog-growth.ts).
    pace: { warmup: 1_000, count: 16_000, consumers: 64, senders: 256, sampleMs: 200 },
    fanout: { warmup: 20, messages: 600, consumers: 8 },
    storm: { warmup: 1_000, count: 8_000, consumers: 64 },
    noisy: { warmup: 1_000, count: 8_000, consumers: 64, healthyTenants: 23, backlog: 10_000 },
    backlog: { messages: 200_000 / FANOUT, consumers: 8 },
    idempotency: { keys: 2_000, warmup: 1_000, replays: 10_000, bursts: 60 },
    ordered: { keys: 1_000, count: 10_000, pacedCount: 4_000 },
    // 20 s at capacity (40/s) is 800: the window after the first 10 s stays busy.
    capacity: { count: 800, windowFromS: 10, windowS: 10, rateCount: 100 },
    // 1,000 sends a phase: the p99 is the 10th slowest, not one outlier.
    history: { warmup: 200, count: 1_000 },
    waitMs: 180_000,
  };
}

/** Endpoints per consumer in the fan-out and backlog scenarios (the spec's cap). */
export const FANOUT_ENDPOINTS = FANOUT;

/**
 * Endpoints whose sends are meant to fail at once (scale, retention): a name in the test
 * certificate mapped to a loopback address where nothing of ours listens (bench receivers use
 * 127.0.1.N, the suite's 127.0.0.N), so a send is refused on connect and never reaches another
 * run's receiver. `wirehookEnv` goes to the launched Wirehook.
 */
export const REFUSING_ENDPOINT = {
  origin: 'https://refused.receiver.wirehook.test:8443',
  wirehookEnv: { DELIVERY_RESOLVE: 'refused.receiver.wirehook.test:127.0.2.1', DELIVERY_ALLOW_HOSTS: '127.0.2.1' },
} as const;
