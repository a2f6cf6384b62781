// What the launchers share: the admin CLI as a process, free ports, the processes a launch
// started, and the tail of a log for an error message.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ADMIN_MAIN = fileURLToPath(new URL('../../packages/admin/src/main.ts', import.meta.url));

/** Runs `node packages/admin/src/main.ts …args` against `dataDir`; @returns its JSON. @throws on a non-zero exit. */
export function runAdmin(args: string[], dataDir: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [ADMIN_MAIN, ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`admin ${args.join(' ')} failed: ${stdout}${stderr}`));
      resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** `count` consecutive free loopback ports; @returns the first. */
export async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        new Promise<boolean>((resolve) => {
          const s = createServer()
            .once('error', () => resolve(false))
            .listen(base + i, '127.0.0.1', () => s.close(() => resolve(true)));
        }),
      ),
    );
    if (free.every(Boolean)) return base;
  }
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
