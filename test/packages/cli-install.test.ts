// @wirehook/cli as a user gets it: packed the way its README says, installed with one
// `npm install` of the tarball into a fresh project outside the repository (its dependency, ws,
// from the registry), linted with publint, and its installed `wirehook` bin run, through its
// `#!/usr/bin/env node` line, on each Node.js version the SDK READMEs name: the usage, then
// `wirehook listen` and `wirehook trigger` against a real embedded Wirehook, the webhook reaching
// a plain node:http server that verifies it with the official standardwebhooks library, and
// Ctrl-C ending listen with exit 0 and removing its listener endpoint.
import type { ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnTestProcess } from '@wirehook/testkit';
import { startWirehook, type Harness } from '../support/harness.ts';
import {
  codeBlock,
  nodeOf,
  nodeVersions,
  npmInstallFlags,
  output,
  packageRegistryDependencies,
  pack,
  REPO,
  type Ran,
  run,
  testedNodeVersions,
  userEnv,
} from './user-project.ts';

const DIR = 'cli';
const README = readFileSync(join(REPO, 'packages', DIR, 'README.md'), 'utf8');
const MANIFEST = JSON.parse(readFileSync(join(REPO, 'packages', DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string };
  bin: Record<string, string>;
};
const NODE_VERSIONS = nodeVersions();

let project: string;
let tarball: string;
let installed: Ran;
const nodes = new Map<number, string>();
/** The installed package, and the command npm linked into the project's node_modules/.bin. */
const installedDir = () => join(project, 'node_modules', ...MANIFEST.name.split('/'));
const wirehookBin = () => join(project, 'node_modules', '.bin', 'wirehook');

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'wirehook-cli-install-'));
  project = join(root, 'project');
  const packs = join(root, 'packs');
  mkdirSync(project);
  mkdirSync(packs);
  tarball = await pack(DIR, packs);
  for (const major of NODE_VERSIONS) nodes.set(major, await nodeOf(major));
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'a-user-project', private: true, type: 'module' }, null, 2)}\n`);
  installed = await run('npm', ['install', ...npmInstallFlags(), tarball], { cwd: project });
}, 240_000);

afterAll(() => {
  if (project) rmSync(join(project, '..'), { recursive: true, force: true });
});

/** A run of the installed `wirehook`, with what it printed so far. */
interface Cli {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Once it ended and its output is all read. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: Cli[] = [];

afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await cli.ended;
  }
});

/** The user's shell with Node.js `major` first on PATH: what the bin's `#!/usr/bin/env node` finds. */
const shellEnv = (major: number, extra: Record<string, string> = {}) =>
  userEnv({ PATH: [dirname(nodes.get(major)!), process.env['PATH']].join(delimiter), ...extra });

/** Runs the project's node_modules/.bin/wirehook itself (not `node …/main.js`), as a user's shell does. */
function wirehook(major: number, args: string[], extra: Record<string, string> = {}): Cli {
  const child = spawnTestProcess(wirehookBin(), args, { cwd: project, env: shellEnv(major, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
    child.once('error', (e) => {
      err += String(e);
      resolve({ code: null, signal: null });
    });
  });
  const cli = { child, out: () => out, err: () => err, ended };
  running.push(cli);
  return cli;
}

const printed = (cli: Cli) => `stdout:\n${cli.out()}\nstderr:\n${cli.err()}`;

describe('the README', () => {
  it('install with npm, from the repository until published, on the Node.js versions its engines allow', () => {
    const { name, engines } = MANIFEST;
    expect(codeBlock(README, 'Install', 'sh')).toBe(`npm install ${name}\n`);
    expect(README).toContain(`./dev pnpm -C packages/${DIR} pack --pack-destination /tmp`); // what pack() runs
    expect(README).toContain(`npm install /tmp/${name.replace('@', '').replace('/', '-')}-*.tgz`);
    expect(testedNodeVersions(README)).toEqual(NODE_VERSIONS);
    expect(README.replace(/\s+/g, ' ')).toContain(`runs on Node.js ${Math.min(...NODE_VERSIONS)} or later`);
    expect(engines.node).toBe(`>=${Math.min(...NODE_VERSIONS)}`);
    expect(MANIFEST.bin).toEqual({ wirehook: './dist/main.js' });
  });
});

describe('the tarball', () => {
  it('installs with npm as a copy in a project outside the repository, its bin and its dependencies resolving there', () => {
    expect(installed.code, output(installed)).toBe(0);
    expect(realpathSync(project).startsWith(`${REPO}/`)).toBe(false);
    const { name, version } = MANIFEST;
    expect(lstatSync(installedDir()).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(installedDir(), 'package.json'), 'utf8'))).toMatchObject({ name, version });
    // The command npm linked is this copy's dist/main.js, not the workspace's.
    expect(realpathSync(wirehookBin())).toBe(join(realpathSync(installedDir()), 'dist', 'main.js'));
    // What its code imports from the registry, installed into the project beside it.
    const deps = packageRegistryDependencies(DIR).map((spec) => spec.slice(0, spec.lastIndexOf('@')));
    expect(deps).toEqual(['ws']);
    const requireFromBin = createRequire(join(installedDir(), 'dist', 'main.js'));
    for (const dep of deps) {
      const resolved = realpathSync(requireFromBin.resolve(dep));
      expect(resolved.startsWith(`${realpathSync(project)}/node_modules/${dep}/`), resolved).toBe(true);
    }
  });

  it('holds the build, its sources (for the source maps), README and package.json; no tests, no tsconfig', async () => {
    const listed = await run('tar', ['-tzf', tarball], { cwd: project });
    expect(listed.code, output(listed)).toBe(0);
    const files = listed.stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/main.js');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/package.json');
    expect(files.filter((f) => /\.test\.|testing|tsconfig/.test(f))).toEqual([]);
    // Every source a shipped source map names is shipped too.
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps).toContain('package/dist/main.js.map');
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(installedDir(), map.replace(/^package\//, '')), 'utf8')) as { sources: string[] };
      for (const source of sources) expect(files, `${map} names ${source}`).toContain(join(dirname(map), source));
    }
  });

  it('publint --strict finds nothing', async () => {
    const linted = await run(join(REPO, 'node_modules', '.bin', 'publint'), ['--strict', tarball], { cwd: project });
    expect(linted.code, output(linted)).toBe(0);
    expect(linted.stdout).toContain('All good!');
  });
});

describe.each(NODE_VERSIONS)('the installed wirehook on Node.js %i', (major) => {
  it('runs on that Node.js: --help prints the usage and exits 0; no command or an unknown option is a usage error, exit 2', async () => {
    // What the bin's `#!/usr/bin/env node` line starts, in this environment.
    const version = await run('/usr/bin/env', ['node', '--version'], { cwd: project, env: shellEnv(major) });
    expect(version.stdout).toMatch(new RegExp(`^v${major}\\.`));

    const help = wirehook(major, ['--help']);
    expect(await help.ended, printed(help)).toEqual({ code: 0, signal: null });
    expect(help.out()).toMatch(/^usage:\n {2}wirehook listen --forward-to <local URL>.*\n {2}wirehook trigger <event_type>/);
    expect(help.err()).toBe('');

    // Usage errors: what is wrong, then the usage, on stderr; exit 2.
    const bare = wirehook(major, []);
    expect(await bare.ended, printed(bare)).toEqual({ code: 2, signal: null });
    expect(bare.out()).toBe('');
    expect(bare.err()).toBe(`wirehook: no command: listen or trigger\n\n${help.out()}`);
    const unknown = wirehook(major, ['listen', '--bogus']);
    expect(await unknown.ended, printed(unknown)).toEqual({ code: 2, signal: null });
    expect(unknown.err()).toMatch(/^wirehook: Unknown option '--bogus'/);
  }, 60_000);
});

describe('the installed wirehook against embedded Wirehook', () => {
  let wh: Harness;

  beforeAll(async () => {
    // The wall clock: the webhook's signature carries the time, which standardwebhooks checks against now.
    wh = await startWirehook({ realTime: true });
  }, 60_000);
  afterAll(async () => {
    await wh?.close();
  });

  it.each(NODE_VERSIONS)(
    'Node.js %i: listen forwards what trigger sends to a local http server, which verifies it; Ctrl-C exits 0',
    async (major) => {
      const t = await wh.tenant({ env: 'test' });
      const env = { WIREHOOK_API_KEY: t.key, WIREHOOK_API_URL: wh.url };

      // A developer's local server: records each webhook and whether it verified with the secret listen printed.
      let secret = '';
      const received: { id: string; type: string; data: unknown; verified: boolean | string }[] = [];
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let verified: boolean | string = true;
          try {
            new Webhook(secret).verify(body, req.headers as Record<string, string>);
          } catch (err) {
            verified = String(err);
          }
          const { type, data } = JSON.parse(body) as { type: string; data: unknown };
          received.push({ id: String(req.headers['webhook-id']), type, data, verified });
          res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
        });
      });
      // Every address of the machine (IPv6 too, where there is one): `localhost` reaches it whichever it resolves to.
      await new Promise<void>((resolve) => server.listen(0, resolve));
      const forwardTo = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
      try {
        const listen = wirehook(major, ['listen', '--forward-to', forwardTo], env);
        secret = await eventually(() => {
          if (listen.child.exitCode !== null) throw new Error(`listen exited (${listen.child.exitCode})\n${printed(listen)}`);
          const found = /its signing secret is (whsec_\S+)/.exec(listen.out());
          if (!found) throw new Error(`not ready yet\n${printed(listen)}`);
          return found[1]!;
        }, 30_000);
        expect(listen.out()).toContain(`to ${forwardTo} (every event type)`);

        const trigger = wirehook(major, ['trigger', 'invoice.paid', '--payload', '{"n":1}'], env);
        expect(await trigger.ended, printed(trigger)).toEqual({ code: 0, signal: null });
        const sent = /^sent invoice\.paid (msg_\S+) to consumer wirehook-listen\n$/.exec(trigger.out());
        expect(sent, printed(trigger)).not.toBeNull();
        const messageId = sent![1]!;

        await eventually(() => expect(received).toEqual([{ id: messageId, type: 'invoice.paid', data: { n: 1 }, verified: true }]), 30_000);
        await eventually(() => expect(listen.out()).toMatch(new RegExp(`→ 200 invoice\\.paid ${messageId} \\d+ ms\\n`)), 10_000);
        // The local server's answer went back over listen's WebSocket as the attempt's response.
        await eventually(async () => {
          const message = await t.api.get(`/v1/messages/${messageId}`);
          expect(message.body.deliveries).toEqual([expect.objectContaining({ status: 'success', attempt_count: 1 })]);
        }, 30_000);
        expect(received).toHaveLength(1);

        // Ctrl-C: exit 0, and the listener endpoint is gone.
        expect((await t.api.get('/v1/endpoints')).body.items).toEqual([expect.objectContaining({ type: 'listen', url: forwardTo })]);
        listen.child.kill('SIGINT');
        expect(await listen.ended, printed(listen)).toEqual({ code: 0, signal: null });
        await eventually(async () => expect((await t.api.get('/v1/endpoints')).body.items).toEqual([]), 10_000);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
    120_000,
  );
});
