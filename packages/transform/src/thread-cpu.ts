import { readFileSync, readlinkSync } from 'node:fs';

/**
 * A thread's CPU time read from outside it, so the watchdog (sandbox-thread.ts) can tell a run
 * that burns CPU in a built-in that never polls the interrupt from one that merely waits for a
 * core (a busy machine, a pod throttled by its CPU limit): only the first is ended. Linux only:
 * elsewhere both read null and the watchdog falls back to the wall clock.
 */

/** The calling thread's id (its /proc/self/task entry), or null where there is no /proc. */
export function ownThreadId(): number | null {
  try {
    const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** The calling thread's CPU time, µs: the clock `threadCpuMicrosOf` reads from outside (the scheduler's run time). */
export function ownThreadCpuMicros(): number {
  const used = process.threadCpuUsage();
  return used.user + used.system;
}

/**
 * CPU time (µs) thread `threadId` of this process has used: the first field of its schedstat,
 * the scheduler's run time in ns — the sum getrusage(RUSAGE_THREAD) reports as user plus
 * system, so it compares with `ownThreadCpuMicros` read inside the thread. Null when it cannot
 * be read (no /proc, a kernel without schedstat, the thread gone).
 */
export function threadCpuMicrosOf(threadId: number): number | null {
  try {
    const text = readFileSync(`/proc/self/task/${threadId}/schedstat`, 'latin1');
    const ns = Number(text.slice(0, text.indexOf(' ')));
    return Number.isFinite(ns) ? ns / 1_000 : null;
  } catch {
    return null;
  }
}
