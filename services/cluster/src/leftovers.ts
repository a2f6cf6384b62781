// What an earlier launcher over the same DATA_DIR left behind, found by the pid files it (and
// the servers it started) wrote in DATA_DIR/run: after a kill -9 a supervisor restarts the
// launcher at once, while the old run's processes are still on their way out.
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process as a pid file names it: the pid and its start time, which a reused pid does not share. */
export interface ProcessRef {
  pid: number;
  /** Clock ticks after boot (field 22 of /proc/<pid>/stat). */
  startTime: number;
}

/** How long a leftover is given to end by itself, and then after SIGTERM, before SIGKILL. */
export const LEFTOVER_WAIT_MS = { own: 10_000, term: 5_000, kill: 2_000 } as const;

/**
 * `pid`'s state letter and start time from /proc, or undefined when it is gone. A zombie
 * (`Z`: dead, not yet reaped — after a process-group SIGKILL its parent is gone too, and it
 * waits for whoever adopts it) counts as gone: it holds no port and no file.
 */
export function liveProcess(pid: number): ProcessRef | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return { pid, startTime: Number(fields[19]) };
}

/** This process's own reference, for a pid file. */
export function selfRef(): ProcessRef {
  const self = liveProcess(process.pid);
  if (!self) throw new Error('cannot read /proc/self/stat');
  return self;
}

/** Writes `refs` to `file`, one `pid startTime name` a line. */
export function writeRefs(file: string, refs: Map<string, ProcessRef>): void {
  writeFileSync(file, [...refs].map(([name, r]) => `${r.pid} ${r.startTime} ${name}\n`).join(''));
}

/** The processes of `file` (as written by {@link writeRefs}) still alive: the same pid and start time, not a zombie. */
export function liveRefs(file: string): { name: string; pid: number }[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const [pid, startTime, name = ''] = line.trim().split(' ');
    const live = liveProcess(Number(pid));
    return live && String(live.startTime) === startTime ? [{ name, pid: live.pid }] : [];
  });
}

/**
 * The pid a server wrote to `file` (nats-server -P, redis-server --pidfile) when that process
 * is alive and is `server` (a stale file's pid may belong to another program by now).
 */
export function liveServer(file: string, server: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !liveProcess(pid)) return undefined;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith(server.slice(0, 15)) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ends a leftover process: waits up to `own` for it to end by itself (its watchdog or its
 * closed stdin is usually stopping it already, and a service handles only its first SIGTERM:
 * a second would cut its drain short), then sends SIGTERM and waits up to `term`, then
 * SIGKILL and waits up to `kill`. @returns how it ended; `survived` when even SIGKILL did not
 * end it in time (another user's process: no permission).
 */
export async function endLeftover(
  pid: number,
  waits: { own: number; term: number; kill: number } = LEFTOVER_WAIT_MS,
): Promise<'ended' | 'terminated' | 'killed' | 'survived'> {
  const start = liveProcess(pid)?.startTime;
  if (start === undefined) return 'ended';
  // The same process as at the start: a pid reused meanwhile is another program's.
  const gone = () => liveProcess(pid)?.startTime !== start;
  const waitGone = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) if (gone()) return true;
    return gone();
  };
  if (await waitGone(waits.own)) return 'ended';
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (!gone()) process.kill(pid, sig);
    } catch {
      // gone meanwhile, or not ours to signal: the wait below says which
    }
  };
  signal('SIGTERM');
  if (await waitGone(waits.term)) return 'terminated';
  signal('SIGKILL');
  return (await waitGone(waits.kill)) ? 'killed' : 'survived';
}
