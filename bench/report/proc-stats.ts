// CPU time and resident memory of processes, read from /proc (Linux).
import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds used so far by `pid`; 0 when it cannot be read (process gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Resident set size of `pid` in bytes; 0 when it cannot be read. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Per process: share of one core over a span (percent), or CPU seconds. */
export interface CpuShare {
  wirehook: number;
  receiver: number;
  harness: number;
}

/** The processes the bench watches. */
export interface Watched {
  wirehook: readonly number[];
  receiver: number;
}

/**
 * CPU use of Wirehook (all its processes summed), the receiver and the harness between
 * `new CpuMeter()` and `stop()`, and Wirehook's peak RSS sampled every `sampleMs` meanwhile.
 */
export class CpuMeter {
  readonly #watched: Watched;
  readonly #startedAt = performance.now();
  readonly #start: { wirehook: number; receiver: number; harness: NodeJS.CpuUsage };
  readonly #timer: NodeJS.Timeout;
  #peakRss = 0;

  constructor(watched: Watched, sampleMs = 100) {
    this.#watched = watched;
    this.#start = { wirehook: sumCpu(watched.wirehook), receiver: cpuSeconds(watched.receiver), harness: process.cpuUsage() };
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), sampleMs);
    this.#timer.unref(); // a run that throws before stop() must not keep the bench alive
  }

  /** Highest RSS of Wirehook (all processes summed) seen so far, bytes. */
  get peakRss(): number {
    return this.#peakRss;
  }

  /** Stops sampling. `cpu`: shares of one core; `cpuSeconds`: CPU time used by each. */
  stop(): { cpu: CpuShare; cpuSeconds: CpuShare; peakRssBytes: number } {
    clearInterval(this.#timer);
    this.#sample();
    const seconds = (performance.now() - this.#startedAt) / 1000;
    const harness = process.cpuUsage(this.#start.harness);
    const used: CpuShare = {
      wirehook: sumCpu(this.#watched.wirehook) - this.#start.wirehook,
      receiver: cpuSeconds(this.#watched.receiver) - this.#start.receiver,
      harness: (harness.user + harness.system) / 1e6,
    };
    const share = (s: number) => Math.round((s / seconds) * 100);
    return {
      cpu: { wirehook: share(used.wirehook), receiver: share(used.receiver), harness: share(used.harness) },
      cpuSeconds: used,
      peakRssBytes: this.#peakRss,
    };
  }

  #sample(): void {
    let rss = 0;
    for (const pid of this.#watched.wirehook) rss += rssBytes(pid);
    if (rss > this.#peakRss) this.#peakRss = rss;
  }
}

function sumCpu(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) total += cpuSeconds(pid);
  return total;
}
