// CPU time and resident memory of processes, read from /proc (Linux).
import { readFileSync } from 'node:fs';
import { CpuUnits } from './cpu-parts.ts';
import { CLOCK_TICKS_PER_SECOND, readStat } from './proc-stat.ts';
import { markRunQueue, runQueueSince, type RunQueue, type RunQueueMark } from './run-queue.ts';

/** User + system CPU seconds used so far by `pid`; 0 when it cannot be read (process gone). */
export function cpuSeconds(pid: number): number {
  return readStat(`/proc/${pid}/stat`)?.cpuSeconds ?? 0;
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
  /** Everything else on the machine (other users' work: how quiet the run was). */
  others: number;
  /** Time the hypervisor gave this machine's CPUs to other guests. */
  steal: number;
}

/** The machine's busy and stolen CPU seconds so far, all cores (from /proc/stat). */
export function machineCpuSeconds(): { busy: number; steal: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS_PER_SECOND, steal: steal! / CLOCK_TICKS_PER_SECOND };
  } catch {
    return { busy: 0, steal: 0 };
  }
}

/** The processes the bench watches. */
export interface Watched {
  wirehook: readonly number[];
  receiver: number;
}

/**
 * CPU use of Wirehook (all its processes summed), the receiver and the harness between
 * `new CpuMeter()` and `stop()`, and Wirehook's peak RSS sampled every `sampleMs` meanwhile.
 * Wirehook's CPU is the sum of its parts (CpuUnits: each thread or process followed by its id
 * and start time, sampled as often), so one that ends in the span — a thread, or a process
 * that dies — counts up to its last sample instead of vanishing from the sum. And the
 * machine's run queue over the span (run-queue.ts): how often a thread waited for a CPU.
 */
export class CpuMeter {
  readonly #watched: Watched;
  readonly #startedAt = performance.now();
  readonly #start: { receiver: number; harness: NodeJS.CpuUsage; machine: { busy: number; steal: number } };
  readonly #units: CpuUnits;
  readonly #timer: NodeJS.Timeout;
  readonly #runQueue: RunQueueMark;
  #peakRss = 0;

  constructor(watched: Watched, sampleMs = 100) {
    this.#watched = watched;
    this.#units = new CpuUnits(watched.wirehook);
    this.#start = {
      receiver: cpuSeconds(watched.receiver),
      harness: process.cpuUsage(),
      machine: machineCpuSeconds(),
    };
    this.#runQueue = markRunQueue();
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), sampleMs);
    this.#timer.unref(); // a run that throws before stop() must not keep the bench alive
  }

  /** Highest RSS of Wirehook (all processes summed) seen so far, bytes. */
  get peakRss(): number {
    return this.#peakRss;
  }

  /**
   * Stops sampling. `cpu`: shares of one core; `cpuSeconds`: CPU time used by each; `parts`:
   * Wirehook's CPU seconds by part (see cpuByPart); `runQueue`: the machine's (null: not sampled).
   */
  stop(): { cpu: CpuShare; cpuSeconds: CpuShare; parts: Record<string, number>; peakRssBytes: number; runQueue: RunQueue | null } {
    clearInterval(this.#timer);
    const runQueue = runQueueSince(this.#runQueue);
    this.#sample();
    const seconds = (performance.now() - this.#startedAt) / 1000;
    const harness = process.cpuUsage(this.#start.harness);
    const machine = machineCpuSeconds();
    const parts = this.#units.used();
    const used: CpuShare = {
      wirehook: Object.values(parts).reduce((a, b) => a + b, 0),
      receiver: cpuSeconds(this.#watched.receiver) - this.#start.receiver,
      harness: (harness.user + harness.system) / 1e6,
      others: 0,
      steal: machine.steal - this.#start.machine.steal,
    };
    used.others = Math.max(0, machine.busy - this.#start.machine.busy - used.wirehook - used.receiver - used.harness);
    const share = (s: number) => Math.round((s / seconds) * 100);
    return {
      parts,
      cpu: {
        wirehook: share(used.wirehook),
        receiver: share(used.receiver),
        harness: share(used.harness),
        others: share(used.others),
        steal: share(used.steal),
      },
      cpuSeconds: used,
      peakRssBytes: this.#peakRss,
      runQueue,
    };
  }

  #sample(): void {
    this.#units.sample();
    let rss = 0;
    for (const pid of this.#watched.wirehook) rss += rssBytes(pid);
    if (rss > this.#peakRss) this.#peakRss = rss;
  }
}
