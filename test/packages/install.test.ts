// @wirehook/client and @wirehook/receiver as a user gets them: each is packed the way its README
// says, both tarballs go into one fresh project outside the repository with one `npm install`
// (beside express, fastify and @types/node, as a user's project has them), and there: publint and
// @arethetypeswrong/cli lint the tarballs; plain Node ESM and CommonJS load every entry point on
// each Node.js version the READMEs name; the READMEs' examples type-check under strict settings
// with module nodenext and nothing else (TypeScript 5.9 and 7), as do the TypeScript samples
// (x-codeSamples) of every operation in docs/openapi.json; and the README's send runs
// against a real embedded Wirehook, which delivers to the README's receivers (Express, Node's
// http), each verifying the signature, on each of those Node.js versions.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wirehook } from '@wirehook/client';
import { eventually, freePort } from '@wirehook/testkit';
import { startWirehook, type Harness, type TestTenant } from '../support/harness.ts';
import { reachingReceivers } from '../support/receivers.ts';
import {
  codeBlock,
  listening,
  nodeOf,
  nodeVersions,
  npmInstallFlags,
  output,
  pack,
  REPO,
  type Ran,
  registryDependencies,
  run,
  start,
  type TlsBridge,
  testedNodeVersions,
  tlsBridge,
  userEnv,
} from './user-project.ts';

const PACKAGES = ['client', 'receiver'] as const;
type Dir = (typeof PACKAGES)[number];

const readme = (dir: Dir) => readFileSync(join(REPO, 'packages', dir, 'README.md'), 'utf8');
const manifest = (dir: Dir) =>
  JSON.parse(readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8')) as { name: string; version: string; engines: { node: string } };
const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
/** The tsc of the TypeScript that `from` (a package.json) depends on. */
const tscOf = (from: string) => join(dirname(createRequire(join(REPO, from)).resolve('typescript/package.json')), 'bin', 'tsc');

// Both READMEs name the same versions (checked below); these are what everything here runs on.
const NODE_VERSIONS = nodeVersions();

/** The TypeScript sample (x-codeSamples) of every operation of docs/openapi.json, by operationId. */
function documentSamples(): Record<string, string> {
  const doc = JSON.parse(readFileSync(join(REPO, 'docs/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; 'x-codeSamples': { lang: string; source: string }[] }>>;
  };
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
  return Object.fromEntries(operations.map((op) => [op.operationId, op['x-codeSamples'].find((s) => s.lang === 'TypeScript')!.source]));
}

/** The README examples, as files of the user's project. */
const EXAMPLES = {
  'send.ts': () => codeBlock(readme('client'), 'Send a first message'),
  'receiver-express.ts': () => codeBlock(readme('receiver'), 'Express'),
  'receiver-fastify.ts': () => codeBlock(readme('receiver'), 'Fastify'),
  'receiver-node-http.ts': () => codeBlock(readme('receiver'), "Node's `http`"),
  'receiver-web.ts': () => codeBlock(readme('receiver'), 'Web `Request`: Next.js, Hono, Cloudflare Workers, Deno, Bun'),
};

// The user's TypeScript settings: what @tsconfig/node20 sets, with module nodenext, strict, and
// nothing for this package (no allowImportingTsExtensions, no skipLibCheck: our .d.ts are checked).
const TSCONFIG = {
  compilerOptions: { target: 'es2022', lib: ['es2023'], module: 'nodenext', strict: true, outDir: 'out' },
  include: ['*.ts', '*.cts'],
};

// require() from a CommonJS TypeScript file: the types a CommonJS project sees.
const REQUIRE_TYPES_CTS = `import client = require('@wirehook/client');
import receiver = require('@wirehook/receiver');
import express = require('@wirehook/receiver/express');
import fastify = require('@wirehook/receiver/fastify');

const wirehook: client.Wirehook = new client.Wirehook({ apiKey: 'sk_test_x', maxRetries: 0 });
const sent: Promise<client.SentMessage> = wirehook.messages.send({ consumer: 'acme', event_type: 'a.b', payload: null });
const verified: receiver.VerifiedWebhook<{ n: number }> | undefined = undefined;
export = { wirehook, sent, verified, express: express.expressWebhook, fastify: fastify.verifyWebhooks };
`;

/** Every entry point, loaded by plain Node: each must have these exports. */
const ENTRY_EXPORTS: Record<string, string[]> = {
  '@wirehook/client': ['Wirehook', 'WirehookApiError', 'WirehookNetworkError', 'idempotencyKey', 'OPERATION_METHODS', 'paginate'],
  '@wirehook/client/types': [],
  '@wirehook/receiver': ['verify', 'verifyNodeRequest', 'verifyRequest', 'WebhookVerificationError', 'REASON_STATUS'],
  '@wirehook/receiver/express': ['expressWebhook'],
  '@wirehook/receiver/fastify': ['verifyWebhooks'],
};

// Loads every entry, then verifies a webhook signed here (Standard Webhooks) and refuses a
// tampered one: the build runs, not only loads. Printed: one JSON line.
const LOAD_CHECK = (load: string) => `const entries = ${JSON.stringify(ENTRY_EXPORTS)};
(async () => {
  const { createHmac } = await ${load}('node:crypto');
  const missing = [];
  const loaded = {};
  for (const [name, exports] of Object.entries(entries)) {
    const mod = await ${load}(name);
    loaded[name] = mod;
    for (const e of exports) if (typeof mod[e] === 'undefined') missing.push(name + ' ' + e);
  }
  const { verify, WebhookVerificationError } = loaded['@wirehook/receiver'];
  const key = Buffer.from('a-secret-of-thirty-two-bytes-ok!');
  const body = JSON.stringify({ type: 'a.b', timestamp: new Date().toISOString(), data: { n: 1 } });
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', key).update('msg_1.' + ts + '.' + body).digest('base64');
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': ts, 'webhook-signature': 'v1,' + sig };
  const secret = 'whsec_' + key.toString('base64');
  const webhook = verify(body, headers, secret);
  let refused;
  try { verify(body.replace('1', '2'), headers, secret); } catch (err) { refused = err instanceof WebhookVerificationError && err.reason; }
  const { Wirehook } = loaded['@wirehook/client'];
  console.log(JSON.stringify({ missing, verified: webhook.event.data, refused, client: typeof new Wirehook({ apiKey: 'k' }).messages.send }));
})();
`;

let project: string;
const tarballs = {} as Record<Dir, string>;
const nodes = new Map<number, string>();
let installed: Ran;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'wirehook-install-'));
  project = join(root, 'project');
  const packs = join(root, 'packs');
  mkdirSync(project);
  mkdirSync(packs);
  for (const dir of PACKAGES) tarballs[dir] = await pack(dir, packs);
  for (const major of NODE_VERSIONS) nodes.set(major, await nodeOf(major));

  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'a-user-project', private: true, type: 'module' }, null, 2)}\n`);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const [file, text] of Object.entries(EXAMPLES)) writeFileSync(join(project, file), text());
  writeFileSync(join(project, 'require-types.cts'), REQUIRE_TYPES_CTS);
  for (const [id, source] of Object.entries(documentSamples())) writeFileSync(join(project, `sample-${id}.ts`), source);
  writeFileSync(join(project, 'load.mjs'), LOAD_CHECK('import'));
  writeFileSync(join(project, 'load.cjs'), LOAD_CHECK('require'));
  // One install for both, from the tarballs, with what the examples import.
  const deps = [tarballs.client, tarballs.receiver, ...registryDependencies(NODE_VERSIONS)];
  installed = await run('npm', ['install', ...npmInstallFlags(), ...deps], { cwd: project });
}, 240_000);

afterAll(() => {
  if (project) rmSync(join(project, '..'), { recursive: true, force: true });
});

describe('the READMEs', () => {
  it.each(PACKAGES)('%s: install with npm, from the repository until published, on the Node.js versions its engines allow', (dir) => {
    const text = readme(dir);
    const { name, engines } = manifest(dir);
    expect(codeBlock(text, 'Install', 'sh')).toBe(`npm install ${name}\n`);
    expect(text).toContain(`./dev pnpm -C packages/${dir} pack --pack-destination /tmp`); // what pack() runs
    expect(text).toContain(`npm install /tmp/${name.replace('@', '').replace('/', '-')}-*.tgz`);
    expect(testedNodeVersions(text)).toEqual(NODE_VERSIONS);
    expect(text.replace(/\s+/g, ' ')).toContain(`runs on Node.js ${Math.min(...NODE_VERSIONS)} or later`);
    expect(engines.node).toBe(`>=${Math.min(...NODE_VERSIONS)}`);
  });
});

describe('the tarballs', () => {
  it.each(PACKAGES)('%s: installs with npm as a copy of the tarball in the project, not a link to the repository, and resolves there', (dir) => {
    expect(installed.code, output(installed)).toBe(0);
    const { name, version } = manifest(dir);
    const installedDir = join(project, 'node_modules', ...name.split('/'));
    expect(lstatSync(installedDir).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8'))).toMatchObject({ name, version });
    // What the project's code gets: this copy, not the workspace's package found by walking up.
    const resolved = realpathSync(createRequire(join(project, 'index.js')).resolve(name));
    expect(resolved.startsWith(`${realpathSync(installedDir)}/`), resolved).toBe(true);
    expect(resolved.startsWith(`${REPO}/`), resolved).toBe(false);
  });

  it.each(PACKAGES)('%s: the build, the sources, README and package.json; no tests, no test support', async (dir) => {
    const listed = await run('tar', ['-tzf', tarballs[dir]], { cwd: project });
    const files = listed.stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/index.js.map');
    expect(files).toContain('package/dist/cjs/index.js');
    expect(files).toContain('package/dist/cjs/package.json');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => /\.test\.|testing|tsconfig/.test(f))).toEqual([]);
  });

  it.each(PACKAGES)('%s: publint --strict finds nothing', async (dir) => {
    const linted = await run(bin('publint'), ['--strict', tarballs[dir]], { cwd: project });
    expect(linted.code, output(linted)).toBe(0);
    expect(linted.stdout).toContain('All good!');
  });

  it.each(PACKAGES)('%s: @arethetypeswrong/cli finds no problem (node16 from ESM and CJS, bundler)', async (dir) => {
    // The node16 profile leaves out TypeScript's node10 resolution (moduleResolution "node"),
    // which cannot see subpath exports at all and is deprecated since TypeScript 5.8.
    const checked = await run(bin('attw'), ['--profile', 'node16', '--format', 'json', tarballs[dir]], { cwd: project });
    expect(checked.code, output(checked)).toBe(0);
    const { problems } = JSON.parse(checked.stdout) as { problems: Record<string, { kind: string; entrypoint: string; resolutionKind?: string }[]> };
    expect(
      Object.values(problems)
        .flat()
        .filter((p) => p.resolutionKind !== 'node10'),
    ).toEqual([]);
  });
});

describe.each(NODE_VERSIONS)('on Node.js %i', (major) => {
  it.each(['mjs', 'cjs'])('plain Node loads every entry point (.%s) and verifies a webhook', async (ext) => {
    const ran = await run(nodes.get(major)!, [`load.${ext}`], { cwd: project });
    expect(ran.code, output(ran)).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ missing: [], verified: { n: 1 }, refused: 'no_matching_signature', client: 'function' });
  });
});

describe('type-checks as a strict TypeScript project (module nodenext)', () => {
  const compilers = {
    'TypeScript 5.9': tscOf('packages/client/package.json'), // the client's, for openapi-typescript
    'TypeScript 7': tscOf('package.json'), // the repository's
  };

  it.each(Object.keys(compilers))("the READMEs' examples, the API reference's samples and require() types with %s", async (name) => {
    const tsc = compilers[name as keyof typeof compilers];
    const version = await run(process.execPath, [tsc, '--version'], { cwd: project });
    expect(version.stdout).toMatch(name === 'TypeScript 7' ? /Version 7\./ : /Version 5\.9\./);
    const checked = await run(process.execPath, [tsc, '-p', '.'], { cwd: project });
    expect(checked.code, output(checked)).toBe(0);
  });
});

describe("the READMEs' send and receivers against embedded Wirehook", () => {
  let wh: Harness;
  let t: TestTenant;
  let bridge: TlsBridge;
  let secret: string;

  beforeAll(async () => {
    wh = await startWirehook(await reachingReceivers());
    t = await wh.tenant({ plan: 'starter' });
    bridge = await tlsBridge();
    const admin = new Wirehook({ apiKey: t.key, baseUrl: wh.url });
    const acme = await admin.consumers.create({ external_id: 'acme' });
    secret = (await admin.endpoints.create({ consumer_id: acme.id, url: bridge.url, retry: { count: 0, interval: '1m' } })).secret;
    // The examples, compiled by the user's TypeScript into out/ (the type-check above checks them too).
    const built = await run(process.execPath, [tscOf('package.json'), '-p', '.'], { cwd: project });
    if (built.code !== 0) throw new Error(`tsc failed\n${output(built)}`);
  }, 60_000);
  afterAll(async () => {
    await bridge?.close();
    await wh?.close();
  });

  const cases = NODE_VERSIONS.flatMap((major) => ['express', 'node-http'].map((receiver) => ({ major, receiver })));

  it.each(cases)(
    "Node.js $major: the client README's send delivers to the receiver README's $receiver example, which verifies it",
    async ({ major, receiver }) => {
      const node = nodes.get(major)!;
      const port = await freePort();
      bridge.target = port;
      const rx = start(node, [`out/receiver-${receiver}.js`], { cwd: project, env: userEnv({ WIREHOOK_SECRET: secret, PORT: String(port) }) });
      try {
        await listening(port, rx);
        const sent = await run(node, ['out/send.js'], { cwd: project, env: userEnv({ WIREHOOK_API_KEY: t.key, WIREHOOK_URL: wh.url }) });
        expect(sent.code, output(sent)).toBe(0);
        const [id, deliveries] = sent.stdout.trim().split(' ');
        expect(id).toMatch(/^msg_/);
        expect(deliveries).toBe('1');
        // The receiver logs a webhook only once it verified it: `<id> order.created { order: 42 }`.
        await eventually(() => expect(rx.output()).toContain(`${id} order.created { order: 42 }`), 10_000);
        const api = new Wirehook({ apiKey: t.key, baseUrl: wh.url });
        const detail = await eventually(async () => {
          const message = await api.messages.get(id!);
          expect(message.deliveries[0]).toMatchObject({ status: 'success', attempt_count: 1 });
          return message;
        });
        expect(detail.deliveries[0]?.attempts[0]?.response_status).toBe(204);
      } finally {
        await rx.stop();
      }
    },
  );
});
