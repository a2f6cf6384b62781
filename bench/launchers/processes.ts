// What the launchers share: the admin CLI as a process, the processes a launch started, and
// the tail of a log for an error message. (Free ports: @wirehook/testkit.)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `node packages/admin/src/main.ts …args` of the checkout `root` (this one) against `dataDir`; @returns its JSON. @throws on a non-zero exit. */
export function runAdmin(args: string[], dataDir: string, root: string = ROOT): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'packages/admin/src/main.ts'), ...args],
      { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`admin ${args.join(' ')} failed: ${stdout}${stderr}`));
        resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

/** Every live descendant of `pid` (children, their children, …), from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

/** The last lines of a log file, for an error message. */
export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
