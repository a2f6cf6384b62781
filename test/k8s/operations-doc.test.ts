// docs/operations.md stays true: every `helm install|upgrade|template` command it shows is run
// through the real Helm against the chart (install and upgrade as a server-side render, with
// the stand-in API server answering the chart's lookups), with the values files the page
// shows (```yaml blocks that start `# file: NAME`), and every environment variable it names in
// backticks is one a Wirehook process reads (or a documented Node/OS one).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { deliveryEnv, dispatchEnv, emailEnv, internalAuthEnv, logEnv, natsEnv, serveEnv, storeEnv, testClockEnv } from '@wirehook/platform';
import { embeddedConfigSchema } from '../../services/embedded/src/config.ts';
import { startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts';
import { root, SCHEMAS } from './manifests.ts';

const doc = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
const blocks = [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));

/** Variables read outside the config schemas: Node's, the launcher's, the OS's. */
const OTHER_VARIABLES = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'WIREHOOK_NODE_FLAGS', 'XDG_CONFIG_HOME', 'MIGRATE_WAIT_SECONDS'];

function knownVariables(): Set<string> {
  const names = new Set(OTHER_VARIABLES);
  const add = (shape: object) => Object.keys(shape).forEach((k) => names.add(k));
  for (const group of [deliveryEnv, dispatchEnv, emailEnv, internalAuthEnv, logEnv, natsEnv, serveEnv(0), storeEnv, testClockEnv]) add(group);
  for (const schema of [...Object.values(SCHEMAS), embeddedConfigSchema]) add(shapeOf(schema));
  return names;
}

/** The object shape behind a schema, through refinements and transforms. */
function shapeOf(schema: z.ZodType): object {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s && !(s instanceof z.ZodObject); i++) {
    const def = (s as { def?: { in?: unknown; schema?: unknown; innerType?: unknown } }).def;
    s = def?.in ?? def?.schema ?? def?.innerType;
  }
  if (!(s instanceof z.ZodObject)) throw new Error('a config schema without an object shape');
  return s.shape;
}

let kube: FakeKubeApi;
let dir: string;
beforeAll(async () => {
  kube = await startFakeKubeApi();
  dir = mkdtempSync(join(tmpdir(), 'wirehook-opsdoc-'));
  symlinkSync(join(root, 'charts'), join(dir, 'charts'));
});
afterAll(() => kube?.close());

it('shows values files, and helm commands that use them', () => {
  expect(blocks.filter((b) => b.lang === 'yaml' && b.body.startsWith('# file: ')).length).toBeGreaterThanOrEqual(3);
  expect(helmCommands().length).toBeGreaterThanOrEqual(6);
});

it('every helm command on the page renders the chart (with the values files the page shows)', async () => {
  for (const block of blocks.filter((b) => b.lang === 'yaml' && b.body.startsWith('# file: '))) {
    writeFileSync(join(dir, /^# file: (\S+)/.exec(block.body)![1]!), block.body);
  }
  for (const command of helmCommands()) {
    const { code, stderr } = await run(command);
    expect(code, `${command}\n${stderr}`).toBe(0);
  }
});

it('every variable the page names is one Wirehook reads', () => {
  const known = knownVariables();
  const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(=[^`]*)?`/g)].map((m) => m[1]!));
  for (const m of doc.matchAll(/--from-literal=([A-Z][A-Z0-9_]+)=/g)) named.add(m[1]!);
  expect(named.size).toBeGreaterThan(15);
  expect([...named].filter((n) => !known.has(n))).toEqual([]);
});

/** The helm commands of the page's shell blocks, continuation lines joined. */
function helmCommands(): string[] {
  return blocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.body.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => /^helm (install|upgrade|template) /.test(line));
}

/**
 * Runs one command in bash as the page shows it, with `helm` standing for a render: install
 * and upgrade become a server-side `helm template` (lookups answered by the stand-in API
 * server), template stays client-side as Argo CD runs it; flags that act on a cluster go.
 */
function run(command: string): Promise<{ code: number; stderr: string }> {
  const shim = `helm() {
    local verb=$1; shift; local args=() server=()
    case $verb in install|upgrade) server=(--dry-run=server --disable-openapi-validation) ;; template) ;; *) echo "helm $verb?" >&2; return 2 ;; esac
    while [ $# -gt 0 ]; do
      case $1 in --create-namespace|--wait|--atomic) ;; --timeout) shift ;; *) args+=("$1") ;; esac
      shift
    done
    command helm template "\${args[@]}" "\${server[@]}" >/dev/null
  }
  set -e
  ${command}`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', shim], { cwd: dir, env: { ...process.env, KUBECONFIG: kube.kubeconfig } }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}
