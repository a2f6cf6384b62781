// Wirehook's CPU split where it is spent, read from /proc: in embedded mode by thread of its
// one process, in cluster mode by service. Each thread or process is followed by its id and
// start time, so one replaced under the same name (a restarted worker) is never subtracted
// from another, and one that ends in a span counts up to its last sample.
import { readdirSync, readFileSync } from 'node:fs';
import { readStat } from './proc-stat.ts';

/** The report's name of each thread name (Linux `comm`, 15 characters at most): Node's own, and the store's (store-thread.ts). */
const THREAD_PARTS: Record<string, string> = {
  MainThread: 'main thread',
  'store-writer': 'store writer',
  'store-reader': 'store reader',
  // GC work, and also concurrent compilation: not told apart.
  V8Worker: 'V8 helpers',
  'libuv-worker': 'libuv pool',
};

/** Each thread (embedded) or process (cluster) of Wirehook now: its part and CPU seconds so far, by `pid[/tid]@start`. */
export type CpuParts = ReadonlyMap<string, { part: string; seconds: number }>;

/**
 * Wirehook's CPU by part over a span: a snapshot at the start, then one at each `sample()`,
 * each thread or process against itself (one that began in the span counts whole; one that
 * ended counts up to its last sample; its name at the start wins).
 */
export class CpuUnits {
  readonly #pids: readonly number[];
  readonly #start: CpuParts;
  readonly #last: Map<string, { part: string; seconds: number }>;

  constructor(pids: readonly number[]) {
    this.#pids = pids;
    this.#start = cpuParts(pids);
    this.#last = new Map(this.#start);
  }

  sample(): void {
    for (const [key, unit] of cpuParts(this.#pids)) this.#last.set(key, unit);
  }

  /** CPU seconds of each part from the start to the last sample. */
  used(): Record<string, number> {
    const parts: Record<string, number> = {};
    for (const [key, last] of this.#last) {
      const first = this.#start.get(key);
      const part = first?.part ?? last.part;
      parts[part] = (parts[part] ?? 0) + last.seconds - (first?.seconds ?? 0);
    }
    return parts;
  }
}

/**
 * A snapshot of `pids` (Wirehook's processes): the one process of embedded mode by thread (the
 * main thread that serves the API and sends, the store's writer and reader, V8's helper
 * threads, libuv's pool), cluster mode's processes by service (replicas under one name, NATS
 * and Redis as theirs).
 */
export function cpuParts(pids: readonly number[]): CpuParts {
  const units = new Map<string, { part: string; seconds: number }>();
  const named = pids.map((pid) => ({ pid, part: processPart(pid) }));
  const embedded = named.length === 1 && named[0]!.part === 'embedded';
  for (const { pid, part } of named) {
    if (!embedded) {
      const stat = readStat(`/proc/${pid}/stat`);
      if (stat) units.set(`${pid}@${stat.startTicks}`, { part, seconds: stat.cpuSeconds });
      continue;
    }
    for (const tid of tasks(pid)) {
      const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
      if (stat) units.set(`${pid}/${tid}@${stat.startTicks}`, { part: threadPart(pid, tid), seconds: stat.cpuSeconds });
    }
  }
  return units;
}

/** A Wirehook process's part: its service (`…/services/<name>/src/main.ts`), nats-server, redis-server, or `other`. */
export function processPart(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const arg of args) {
      const service = /\/services\/([^/]+)\/src\/main\.ts$/.exec(arg)?.[1];
      if (service) return service;
    }
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
