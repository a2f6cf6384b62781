import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';

/**
 * The directory where every process a test starts is recorded (one `<pid>.json` each, deleted
 * when it is ended). `./dev test` (scripts/run-tests.ts) sets it per run and, after the suite,
 * names and kills every recorded process still alive (`leftoverProcesses`). Unset: nothing is
 * recorded; processes are still ended with their test file.
 */
export const TEST_PROCESSES_DIR_ENV = 'WIREHOOK_TEST_PROCESSES_DIR';

/** One process a test started: `group` when `pid` leads its own process group (all of it is ended). */
export interface ProcessRecord {
  readonly pid: number;
  readonly group: boolean;
  readonly command: string;
  /** The test file (or other caller) that started it, with its line. */
  readonly startedBy: string;
}

/** A process of a record still alive after the suite. */
export interface Leftover {
  readonly record: ProcessRecord;
  /** The living processes: the pid itself, or every member of its group. */
  readonly pids: readonly number[];
}

const live = new Map<number, ProcessRecord>();
let watchdog: ChildProcess | undefined;

/**
 * Ends every recorded process when this one dies by any means, even SIGKILL: it reads lines
 * `add <target>` / `del <target>` (target: a pid, or `-pgid` for a group) and, when our end of
 * the pipe closes, SIGKILLs what was added and not deleted.
 */
const WATCHDOG = [
  "trap '' INT TERM HUP",
  "live=' '",
  'while read -r verb target; do',
  '  case $verb in',
  '    add) live="$live$target " ;;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion.
  '    del) live="${live%% $target *} ${live#* $target }" ;;',
  '  esac',
  'done',
  'for target in $live; do kill -KILL "$target" 2>/dev/null; done',
].join('\n');

/**
 * `child_process.spawn` for a test: the process leads its own process group (so its children
 * end with it), is recorded in $WIREHOOK_TEST_PROCESSES_DIR, and is SIGKILLed with its whole
 * group by `endTestProcesses()` (vitest's setup runs it after every test file's own afterAll,
 * timed-out tests included), when this process exits, or by a watchdog when this process is
 * killed. Ending it earlier (SIGTERM and waiting for its exit) is still the test's job.
 */
export function spawnTestProcess(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // spawn failed: its 'error' event follows
  track({ pid, group: true, command: [command, ...args].join(' '), startedBy: caller() });
  // Once the leader is gone, a group nobody else is left in needs no ending.
  child.once('exit', () => {
    if (live.has(pid) && livingPids({ pid, group: true }).length === 0) untrack(pid);
  });
  return child;
}

/** Records a process started some other way (a supervised server's pid), to be ended like spawnTestProcess's. */
export function trackTestProcess(record: ProcessRecord): void {
  track(record);
}

/** Forgets a process that has ended (its record file is deleted). */
export function untrackTestProcess(pid: number): void {
  untrack(pid);
}

/** SIGKILLs every process this process recorded that is still alive (with its group) and forgets them. */
export function endTestProcesses(): void {
  for (const record of [...live.values()]) {
    signal(record, 'SIGKILL');
    untrack(record.pid);
  }
}

/** Writes a record to `dir` (what spawnTestProcess does under $WIREHOOK_TEST_PROCESSES_DIR). */
export function writeProcessRecord(dir: string, record: ProcessRecord): void {
  writeFileSync(join(dir, `${record.pid}.json`), `${JSON.stringify(record)}\n`);
}

/**
 * The check at the end of a run: every process recorded in `dir` that is still alive (or, for
 * a group, any process left in it), SIGKILLed. Records of ended processes are ignored.
 */
export function leftoverProcesses(dir: string): Leftover[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const leftovers: Leftover[] = [];
  for (const name of names) {
    let record: ProcessRecord;
    try {
      record = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ProcessRecord;
    } catch {
      continue; // deleted while we read, or half written by a killed worker
    }
    const pids = livingPids(record);
    if (pids.length === 0) continue;
    leftovers.push({ record, pids });
    signal(record, 'SIGKILL');
  }
  return leftovers;
}

/** The living (not zombie) processes of a record, read from /proc. */
export function livingPids(record: Pick<ProcessRecord, 'pid' | 'group'>): number[] {
  if (!record.group) return stateOf(record.pid)?.living ? [record.pid] : [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const state = stateOf(Number(entry));
    if (state?.living && state.group === record.pid) pids.push(Number(entry));
  }
  return pids;
}

function stateOf(pid: number): { living: boolean; group: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
  const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { living: state !== 'Z' && state !== 'X', group: Number(group) };
}

function track(record: ProcessRecord): void {
  installHooks();
  live.set(record.pid, record);
  tellWatchdog(`add ${target(record)}`);
  const dir = process.env[TEST_PROCESSES_DIR_ENV];
  if (dir) writeProcessRecord(dir, record);
}

function untrack(pid: number): void {
  const record = live.get(pid);
  if (record === undefined) return;
  live.delete(pid);
  tellWatchdog(`del ${target(record)}`);
  const dir = process.env[TEST_PROCESSES_DIR_ENV];
  if (dir) rmSync(join(dir, `${pid}.json`), { force: true });
}

function target(record: ProcessRecord): string {
  return record.group ? `-${record.pid}` : String(record.pid);
}

function signal(record: ProcessRecord, name: NodeJS.Signals): void {
  try {
    process.kill(record.group ? -record.pid : record.pid, name);
  } catch {
    // already gone
  }
}

function installHooks(): void {
  if (watchdog !== undefined) return;
  watchdog = spawn('sh', ['-c', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.unref();
  watchdog.stdin?.on('error', () => {}); // it only ends once we are gone
  (watchdog.stdin as unknown as Socket).unref();
  process.once('exit', endTestProcesses);
}

function tellWatchdog(line: string): void {
  watchdog?.stdin?.write(`${line}\n`);
}

function caller(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const frame = frames.find((line) => /\.test\.ts/.test(line)) ?? frames.find((line) => !line.includes('test-processes.ts')) ?? '';
  return frame.trim().replace(/^at\s+/, '');
}
