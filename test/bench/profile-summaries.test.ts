// The bench's two readers of V8's files, run as a user runs them: bench/profile-summary.ts on a
// CPU profile whose samples are known, bench/alloc/heap-snapshot-summary.ts on a heap snapshot a
// child process writes while it holds a known number of objects.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bench = join(import.meta.dirname, '..', '..', 'bench');
const dir = mkdtempSync(join(tmpdir(), 'wirehook-profile-summaries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('profile-summary', () => {
  it('charges self time to packages, as shares of the busy samples (idle left out)', async () => {
    const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
      id,
      callFrame: { functionName, url, lineNumber: 0 },
      children,
    });
    const profile = {
      nodes: [
        frame(1, '(root)', '', [2, 3, 4, 5, 6, 7, 8, 9]),
        frame(2, '(idle)', ''),
        frame(3, 'handle', 'file:///x/node_modules/.pnpm/express@5.3.0/node_modules/express/lib/application.js'),
        frame(4, '_bindFunction', 'file:///x/node_modules/.pnpm/@opentelemetry+context-async-hooks@3.1.0_@opentelemetry+api@1.10.0/node_modules/x.mjs'),
        frame(5, 'send', 'file:///x/services/dispatcher/src/webhook-sender.ts'),
        frame(6, 'postMessage', ''),
        frame(7, 'onread', 'node:internal/streams/readable'),
        frame(8, 'newId', 'file:///x/packages/core/src/ids.ts'),
        frame(9, '(garbage collector)', ''),
      ],
      // 6 s idle; of the 4 s busy: express 1.6, OpenTelemetry 0.8, the dispatcher 0.48, postMessage 0.32,
      // Node's streams 0.4, core 0.24, the collector 0.16.
      samples: [2, 3, 4, 5, 6, 7, 8, 9],
      timeDeltas: [6e6, 1.6e6, 0.8e6, 0.48e6, 0.32e6, 0.4e6, 0.24e6, 0.16e6],
    };
    const file = join(dir, 'known.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const { stdout } = await run(process.execPath, [join(bench, 'profile-summary.ts'), file]);
    const part = stdout.slice(stdout.indexOf('self time by package'), stdout.indexOf('time by nearest'));
    expect(part).toContain('of the busy (not idle) samples: 4.0 s');
    expect(part).toMatch(/ 40\.0% {2}npm express\n/);
    expect(part).toMatch(/ 20\.0% {2}npm @opentelemetry\/context-async-hooks\n/);
    expect(part).toMatch(/ 12\.0% {2}services\/dispatcher\n/);
    expect(part).toMatch(/ 10\.0% {2}node streams\n/);
    expect(part).toMatch(/ {2}8\.0% {2}native postMessage\n/);
    expect(part).toMatch(/ {2}6\.0% {2}packages\/core\n/);
    expect(part).toMatch(/ {2}4\.0% {2}\(garbage collector\)\n/);
    expect(part).not.toMatch(/% {2}\(idle\)/);
  });
});

describe('alloc/summary', () => {
  it('groups a heap sampling profile by package as profile-summary does, per delivery, and says which kind of profile it read', async () => {
    const node = (functionName: string, url: string, selfSize: number, children: unknown[] = []) => ({
      callFrame: { functionName, url, lineNumber: 0 },
      selfSize,
      children,
    });
    // 1,000 deliveries: the router 30 KB, zod 10 KB (called by the intake), the intake 20 KB, a native 40 KB.
    const head = node('(root)', '', 0, [
      node('handle', 'file:///x/node_modules/.pnpm/router@2.2.0/node_modules/router/index.js', 30_000_000, [
        node('accept', 'file:///x/services/message-intake/src/message-intake.ts', 20_000_000, [
          node('parse', 'file:///x/node_modules/.pnpm/zod@4.1.0/node_modules/zod/v4/core/parse.js', 10_000_000),
        ]),
      ]),
      node('postMessage', '', 40_000_000),
    ]);
    const file = join(dir, 'known.heapprofile');
    writeFileSync(file, JSON.stringify({ head }));
    const summary = join(bench, 'alloc', 'summary.ts');
    const { stdout } = await run(process.execPath, [summary, file, '1000']);
    expect(stdout).toContain('100.00 KB a delivery allocated on the main thread');
    const byPackage = stdout.slice(stdout.indexOf('by package'), stdout.indexOf('by nearest'));
    expect(byPackage).toMatch(/ 40\.00 {2}native postMessage\n/);
    expect(byPackage).toMatch(/ 30\.00 {2}npm router\n/);
    expect(byPackage).toMatch(/ 20\.00 {2}services\/message-intake\n/);
    expect(byPackage).toMatch(/ 10\.00 {2}npm zod\n/);
    // zod's bytes are charged to the intake that called it.
    expect(stdout.slice(stdout.indexOf('by nearest'))).toMatch(/ 30\.00 {2}accept services\/message-intake\/src\/message-intake\.ts:1\n/);
    const survivors = await run(process.execPath, [summary, file, '1000', '--survivors']);
    expect(survivors.stdout).toContain('100.00 KB a delivery still live (allocated and not yet collected) on the main thread');
  });
});

describe('heap-snapshot-summary', () => {
  it('counts the objects a snapshot holds by constructor, and groups long strings by their start', async () => {
    const file = join(dir, 'known.heapsnapshot');
    const child = [
      'class KeptForTheSnapshot {}',
      'globalThis.kept = Array.from({ length: 1234 }, () => new KeptForTheSnapshot());',
      // Through a Buffer: flat strings, as a parsed payload is (a template's result is a concatenation, its parts short).
      'globalThis.texts = Array.from({ length: 7 }, (_, i) => Buffer.from(\'{"kind":"snapshot-test","pad":"\' + String(i).repeat(300) + \'"}\').toString());',
      "require('node:v8').writeHeapSnapshot(process.argv[1]);",
    ].join('\n');
    await run(process.execPath, ['-e', child, file]);
    const { stdout } = await run(process.execPath, [join(bench, 'alloc', 'heap-snapshot-summary.ts'), file, '100000']);
    const kept = / +(\d+) KB +1234 {2}object KeptForTheSnapshot\n/.exec(stdout);
    // 1,234 small objects: some KB in all (12–32 bytes each), not nothing and not megabytes.
    expect(Number(kept?.[1])).toBeGreaterThanOrEqual(10);
    expect(Number(kept?.[1])).toBeLessThanOrEqual(60);
    // Seven flat strings of ≈ 330 characters: ≈ 2.3 KB, grouped by their start; shorter strings are not listed.
    expect(stdout).toMatch(/ +2 KB +7 {2}string: "\{\\"kind\\":\\"snapshot-test\\",\\"pad\\":\\"/);
  }, 30_000);
});
