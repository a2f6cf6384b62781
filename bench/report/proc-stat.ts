// One process's or thread's /proc `stat` file: its CPU so far and when it started.
import { readFileSync } from 'node:fs';

/** USER_HZ on Linux: the unit of /proc's times. */
export const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds so far and start time (clock ticks since boot) of a process or thread; undefined when gone. */
export function readStat(
  path: string,
  read: (path: string) => string = (file) => readFileSync(file, 'utf8'),
): { cpuSeconds: number; startTicks: number } | undefined {
  try {
    const stat = read(path);
    // Fields after the command name, which is in parentheses and may hold spaces: state is [0], utime [11], stime [12], starttime [19].
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND, startTicks: Number(fields[19]) };
  } catch {
    return undefined;
  }
}
