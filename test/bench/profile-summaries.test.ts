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
        frame(1, '(root)', '', [2, 3, 4, 5, 6]),
        frame(2, '(idle)', ''),
        frame(3, 'handle', 'file:///x/node_modules/.pnpm/express@5.3.0/node_modules/express/lib/application.js'),
        frame(4, '_bindFunction', 'file:///x/node_modules/.pnpm/@opentelemetry+context-async-hooks@3.1.0_@opentelemetry+api@1.10.0/node_modules/x.mjs'),
        frame(5, 'send', 'file:///x/services/dispatcher/src/webhook-sender.ts'),
        frame(6, 'postMessage', ''),
      ],
      // 600 µs idle; of the 400 busy: express 200, OpenTelemetry 100, the dispatcher 60, postMessage 40.
      samples: [2, 3, 4, 5, 6],
      timeDeltas: [600, 200, 100, 60, 40],
    };
    const file = join(dir, 'known.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const { stdout } = await run(process.execPath, [join(bench, 'profile-summary.ts'), file]);
    const part = stdout.slice(stdout.indexOf('self time by package'), stdout.indexOf('time by nearest'));
    expect(part).toContain('of the busy (not idle) samples: 0.0 s');
    expect(part).toMatch(/ 50\.0% {2}npm express\n/);
    expect(part).toMatch(/ 25\.0% {2}npm @opentelemetry\/context-async-hooks\n/);
    expect(part).toMatch(/ 15\.0% {2}services\/dispatcher\n/);
    expect(part).toMatch(/ 10\.0% {2}native postMessage\n/);
    expect(part).not.toMatch(/% {2}\(idle\)/);
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
    expect(stdout).toMatch(/ 1234 {2}object KeptForTheSnapshot\n/);
    expect(stdout).toMatch(/ 7 {2}string: "\{\\"kind\\":\\"snapshot-test\\",\\"pad\\":\\"/);
  }, 30_000);
});
