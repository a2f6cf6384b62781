// CPU time and resident memory of processes, read from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds used so far by `pid`; 0 when it cannot be read (process gone). */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** User + system CPU seconds of a /proc `stat` file (a process's or a thread's); 0 when unreadable. */
function statCpuSeconds(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Names Node gives its threads (Linux `comm`, 15 characters at most), as the report says them. */
const THREAD_PARTS: Record<string, string> = {
  MainThread: 'main thread',
  'store-writer': 'store writer',
  'store-reader': 'store reader',
  V8Worker: 'V8 helpers (GC)',
  'libuv-worker': 'libuv pool',
};

/**
 * CPU seconds used so far by each part of Wirehook: in cluster mode each service (replicas
 * summed), NATS and Redis; in embedded mode, its one process's threads (the main thread that
 * serves the API and sends, the store's writer and reader threads, V8's helper threads, which
 * are mostly the garbage collector's, and libuv's pool).
 */
export function cpuPartsSeconds(pids: readonly number[]): Record<string, number> {
  const parts: Record<string, number> = {};
  const add = (part: string, seconds: number) => (parts[part] = (parts[part] ?? 0) + seconds);
  const processes = pids.map((pid) => ({ pid, name: processPart(pid) }));
  const embedded = processes.filter((p) => p.name === 'embedded');
  for (const { pid, name } of processes) {
    if (name !== 'embedded' || embedded.length > 1) {
      add(name, cpuSeconds(pid));
      continue;
    }
    for (const tid of tasks(pid)) add(threadPart(pid, tid), statCpuSeconds(`/proc/${pid}/task/${tid}/stat`));
  }
  return parts;
}

/** A Wirehook process's part: its service (`services/<name>/src/main.ts`), nats-server, redis-server, or `other`. */
function processPart(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const main = args.find((a) => /\/services\/[^/]+\/src\/main\.ts$/.test(a));
    if (main) return main.split('/services/')[1]!.split('/')[0]!;
    // Redis rewrites its command line ("redis-server 127.0.0.1:6379"): the program's name leads it.
    for (const server of ['nats-server', 'redis-server']) if (args[0]?.split(/[\s/]/).includes(server)) return server;
  } catch {
    // gone meanwhile
  }
  return 'other';
}

function tasks(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

function threadPart(pid: number, tid: string): string {
  try {
    return THREAD_PARTS[readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()] ?? 'other threads';
  } catch {
    return 'other threads';
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
 */
export class CpuMeter {
  readonly #watched: Watched;
  readonly #startedAt = performance.now();
  readonly #start: { wirehook: number; parts: Record<string, number>; receiver: number; harness: NodeJS.CpuUsage; machine: { busy: number; steal: number } };
  readonly #timer: NodeJS.Timeout;
  #peakRss = 0;

  constructor(watched: Watched, sampleMs = 100) {
    this.#watched = watched;
    this.#start = {
      wirehook: sumCpu(watched.wirehook),
      parts: cpuPartsSeconds(watched.wirehook),
      receiver: cpuSeconds(watched.receiver),
      harness: process.cpuUsage(),
      machine: machineCpuSeconds(),
    };
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), sampleMs);
    this.#timer.unref(); // a run that throws before stop() must not keep the bench alive
  }

  /** Highest RSS of Wirehook (all processes summed) seen so far, bytes. */
  get peakRss(): number {
    return this.#peakRss;
  }

  /** Stops sampling. `cpu`: shares of one core; `cpuSeconds`: CPU time used by each; `parts`: Wirehook's CPU seconds by part (see cpuPartsSeconds). */
  stop(): { cpu: CpuShare; cpuSeconds: CpuShare; parts: Record<string, number>; peakRssBytes: number } {
    clearInterval(this.#timer);
    this.#sample();
    const seconds = (performance.now() - this.#startedAt) / 1000;
    const harness = process.cpuUsage(this.#start.harness);
    const machine = machineCpuSeconds();
    const used: CpuShare = {
      wirehook: sumCpu(this.#watched.wirehook) - this.#start.wirehook,
      receiver: cpuSeconds(this.#watched.receiver) - this.#start.receiver,
      harness: (harness.user + harness.system) / 1e6,
      others: 0,
      steal: machine.steal - this.#start.machine.steal,
    };
    used.others = Math.max(0, machine.busy - this.#start.machine.busy - used.wirehook - used.receiver - used.harness);
    const share = (s: number) => Math.round((s / seconds) * 100);
    const parts = Object.entries(cpuPartsSeconds(this.#watched.wirehook)).map(([part, end]) => [part, end - (this.#start.parts[part] ?? 0)] as const);
    return {
      parts: Object.fromEntries(parts.filter(([, used]) => used > 0)),
      cpu: {
        wirehook: share(used.wirehook),
        receiver: share(used.receiver),
        harness: share(used.harness),
        others: share(used.others),
        steal: share(used.steal),
      },
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
