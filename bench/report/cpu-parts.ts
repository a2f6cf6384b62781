// Wirehook's CPU split where it is spent, read from /proc: in embedded mode by thread of its
// one process, in cluster mode by service. Each thread or process is followed by its id and
// start time, so one replaced under the same name (a restarted worker) is never subtracted
// from another, and one that ends in a span counts up to its last sample.
import { readdirSync, readFileSync } from 'node:fs';
import { CLUSTER_FLOOR_ROLES } from '../floor/cluster-floor-options.ts';
import { readStat } from './proc-stat.ts';

/** An endpoint transformation sandbox thread's `comm`: its name `transform-sandbox` cut to Linux's 15 characters. */
export const SANDBOX_COMM = 'transform-sandb';

/** The report's name of each thread name (Linux `comm`, 15 characters at most): Node's own, and the store's (store-thread.ts). */
const THREAD_PARTS: Record<string, string> = {
  MainThread: 'main thread',
  'store-writer': 'store writer',
  'store-reader': 'store reader',
  // Embedded mode's sends (@wirehook/egress's EgressThread): undici, TLS, the sockets' writes; the threaded floor's likewise.
  egress: 'egress thread',
  // GC work, and also concurrent compilation: not told apart.
  V8Worker: 'V8 helpers',
  'libuv-worker': 'libuv pool',
  // @wirehook/transform's sandbox threads ('transform-sandbox', cut to 15 characters): endpoint transformations (issue 45).
  [SANDBOX_COMM]: 'transform sandbox',
};

/**
 * Wirehook's CPU by part over a span, for the processes `pids`: the one process of embedded
 * mode by thread (the main thread that serves the API and sends, the store's writer and
 * reader, V8's helper threads, libuv's pool), cluster mode's processes by service (replicas
 * under one name, NATS and Redis as theirs). Read at construction and at each `sample()`, each
 * thread or process against itself, by `pid[/tid]@start`: one that began in the span counts
 * whole, one that ended counts up to its last sample. A process is named when first seen; a
 * thread at each of its first NAME_LOOKS samples: a new thread bears its creator's name (a
 * worker seen in its first moments reads as the main thread) until it names itself.
 */
export class CpuUnits {
  /** Named once: a process's command line does not change. */
  readonly #processes: readonly { pid: number; part: string }[];
  readonly #byThread: boolean;
  readonly #units = new Map<string, { part: string; first: number; last: number; looks: number }>();
  #spanStarted = false;

  readonly #proc: Proc;

  /** `proc`: how /proc is read (a test's stand-in). */
  constructor(pids: readonly number[], proc: Proc = SYSTEM_PROC) {
    this.#proc = proc;
    this.#processes = pids.map((pid) => ({ pid, part: processPart(pid, proc) }));
    this.#byThread = this.#processes.length === 1 && BY_THREAD.has(this.#processes[0]!.part);
    this.sample();
    this.#spanStarted = true;
  }

  sample(): void {
    for (const { key, seconds, part } of this.#read()) {
      const unit = this.#units.get(key);
      if (!unit) {
        this.#units.set(key, { part: part(), first: this.#spanStarted ? 0 : seconds, last: seconds, looks: 1 });
        continue;
      }
      unit.last = seconds;
      if (unit.looks < NAME_LOOKS) {
        unit.looks++;
        unit.part = part();
      }
    }
  }

  /** CPU seconds of each part from the start to the last sample. */
  used(): Record<string, number> {
    const parts: Record<string, number> = {};
    for (const { part, first, last } of this.#units.values()) parts[part] = (parts[part] ?? 0) + last - first;
    return parts;
  }

  *#read(): Iterable<{ key: string; seconds: number; part: () => string }> {
    for (const { pid, part } of this.#processes) {
      if (!this.#byThread) {
        const stat = readStat(`/proc/${pid}/stat`, this.#proc.read);
        if (stat) yield { key: `${pid}@${stat.startTicks}`, seconds: stat.cpuSeconds, part: () => part };
        continue;
      }
      for (const tid of tasks(pid, this.#proc)) {
        const stat = readStat(`/proc/${pid}/task/${tid}/stat`, this.#proc.read);
        if (stat) yield { key: `${pid}/${tid}@${stat.startTicks}`, seconds: stat.cpuSeconds, part: () => threadPart(pid, tid, this.#proc) };
      }
    }
  }
}

/** A thread's part while its name is none of THREAD_PARTS. */
const UNNAMED = 'other threads';
/** How many samples read a thread's name: a worker names itself a moment after its thread starts. */
const NAME_LOOKS = 5;

/** How /proc is read: a file's text (throws when gone), a directory's entries. */
export interface Proc {
  read(path: string): string;
  list(path: string): string[];
}
const SYSTEM_PROC: Proc = { read: (path) => readFileSync(path, 'utf8'), list: (path) => readdirSync(path) };

/** The processes split by thread when measured alone: embedded mode, and the pipeline floors of one process beside it. */
const BY_THREAD = new Set(['embedded', 'floor', 'threaded floor']);

/**
 * A Wirehook process's part: its service (`…/services/<name>/src/main.ts`), the pipeline floor,
 * the threaded floor, the cluster floor's by role, nats-server, redis-server, or `other`.
 */
export function processPart(pid: number, proc: Proc = SYSTEM_PROC): string {
  try {
    const args = proc.read(`/proc/${pid}/cmdline`).split('\0');
    for (const [i, arg] of args.entries()) {
      const service = /\/services\/([^/]+)\/src\/main\.ts$/.exec(arg)?.[1];
      if (service) return service;
      if (arg.endsWith('/bench/floor/floor-process.ts')) return 'floor';
      if (arg.endsWith('/bench/floor/threaded-floor-process.ts')) return 'threaded floor';
      // The cluster floor's processes by role, its next argument.
      if (arg.endsWith('/bench/floor/cluster-floor-process.ts')) {
        const role = args[i + 1];
        return role !== undefined && (CLUSTER_FLOOR_ROLES as readonly string[]).includes(role) ? `floor ${role}` : 'other';
      }
    }
    // Redis rewrites its command line ("redis-server 127.0.0.1:6379"): the program's name leads it.
    for (const server of ['nats-server', 'redis-server']) if (args[0]?.split(/[\s/]/).includes(server)) return server;
  } catch {
    // gone meanwhile
  }
  return 'other';
}

/** How many threads of the processes `pids` are named `comm` now (e.g. SANDBOX_COMM: the sandbox threads started). */
export function threadsNamed(pids: readonly number[], comm: string): number {
  let count = 0;
  for (const pid of pids) {
    for (const tid of tasks(pid)) {
      try {
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === comm) count++;
      } catch {
        // ended meanwhile
      }
    }
  }
  return count;
}

function tasks(pid: number, proc: Proc = SYSTEM_PROC): string[] {
  try {
    return proc.list(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

function threadPart(pid: number, tid: string, proc: Proc): string {
  try {
    return THREAD_PARTS[proc.read(`/proc/${pid}/task/${tid}/comm`).trim()] ?? UNNAMED;
  } catch {
    return UNNAMED;
  }
}
