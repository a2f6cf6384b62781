import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const KEPT_RESOLUTIONS = new URL('./kept-resolutions.mjs', import.meta.url).href;

interface KeptFile {
  fingerprint: string;
  resolutions: [string, string][];
}

/**
 * A checkout of its own in a temporary folder: the files the fingerprint reads, a package in its
 * node_modules whose `exports` name one of two modules, two modules beside the program, and a
 * program that keeps its resolutions (for that checkout) and imports what its arguments name.
 */
function makeCheckout(dir: string): string {
  const checkout = join(dir, 'checkout');
  const files: Record<string, string> = {
    'package.json': '{ "name": "probe", "type": "module" }\n',
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'pnpm-workspace.yaml': 'packages: [packages/*]\n',
    'packages/one/package.json': '{ "name": "@probe/one", "type": "module" }\n',
    'services/two/package.json': '{ "name": "@probe/two", "type": "module" }\n',
    'node_modules/.modules.yaml': 'layoutVersion: 5\n',
    'node_modules/dep/package.json': '{ "name": "dep", "type": "module", "exports": { ".": "./one.mjs" } }\n',
    'node_modules/dep/one.mjs': "export const name = 'dep/one';\n",
    'node_modules/dep/two.mjs': "export const name = 'dep/two';\n",
    'a.mjs': "export const name = 'a';\n",
    'b.mjs': "export const name = 'b';\n",
    'program.mjs': `import { keepResolutions } from ${JSON.stringify(KEPT_RESOLUTIONS)};
keepResolutions(process.argv[1], new URL('./', import.meta.url));
const args = process.argv.slice(2);
const names = [];
for (const specifier of args.filter((arg) => arg !== '--stay')) names.push((await import(specifier)).name ?? specifier);
process.stdout.write(JSON.stringify(names) + '\\n');
if (args.includes('--stay')) setInterval(() => {}, 1_000); // until killed
`,
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(checkout, name, '..'), { recursive: true });
    writeFileSync(join(checkout, name), text);
  }
  return checkout;
}

/** The environment of a process with only `extra` of Node's own settings: the caller's compile cache, NODE_OPTIONS and NODE_PATH dropped. */
function envWith(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, NODE_OPTIONS: ___, NODE_PATH: ____, ...inherited } = process.env;
  return { ...inherited, ...extra };
}

/** The kept files under a compile cache (Node adds a folder for its version), by path; partial files too, if any were left. */
function keptFiles(cache: string): string[] {
  return existsSync(cache) ? readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((path) => path.includes('wirehook-resolutions/')) : [];
}

/** Each kept file's answers under a compile cache. */
function keptIn(cache: string): KeptFile[] {
  return keptFiles(cache).map((path) => JSON.parse(readFileSync(join(cache, path), 'utf8')) as KeptFile);
}

describe('keepResolutions', () => {
  let dir: string;
  let checkout: string;
  let cache: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wirehook-kept-resolutions-'));
    checkout = makeCheckout(dir);
    cache = join(dir, 'cache');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `program` (the checkout's, or another) on `specifiers`, Node given `nodeArgs` first: the names it imported. */
  const run = (
    specifiers: string[],
    program = join(checkout, 'program.mjs'),
    env = envWith({ NODE_COMPILE_CACHE: cache }),
    nodeArgs: string[] = [],
  ): string[] => JSON.parse(execFileSync(process.execPath, [...nodeArgs, program, ...specifiers], { env, encoding: 'utf8', timeout: 20_000 })) as string[];
  const readKept = (): { path: string; kept: KeptFile } => {
    const [path, ...more] = keptFiles(cache);
    expect(more).toEqual([]);
    return { path: join(cache, path!), kept: JSON.parse(readFileSync(join(cache, path!), 'utf8')) as KeptFile };
  };
  const url = (name: string) => pathToFileURL(join(checkout, name)).href;
  /** Each kept answer whose specifier is `specifier` changed to `target` (a file of the checkout): a stale answer, made. */
  const pointKept = (changes: Record<string, string>) => {
    const { path, kept } = readKept();
    kept.resolutions = kept.resolutions.map(([key, answer]) => {
      const specifier = key.split('\0')[1]!;
      return [key, specifier in changes ? url(changes[specifier]!) : answer];
    });
    writeFileSync(path, JSON.stringify(kept));
  };

  it('keeps what a program resolved, and a later process takes the kept answer without resolving', () => {
    expect(run(['./a.mjs', 'dep'])).toEqual(['a', 'dep/one']);
    const { path, kept } = readKept();
    expect(path).toMatch(/wirehook-resolutions\/[0-9a-f]{32}\.json$/); // no partial file left
    expect(new Map(kept.resolutions.map(([key, answer]) => [key.split('\0').slice(0, 2).join(' → '), answer]))).toEqual(
      new Map([
        [`${url('program.mjs')} → ./a.mjs`, url('a.mjs')],
        [`${url('program.mjs')} → dep`, url('node_modules/dep/one.mjs')],
      ]),
    );
    // Made stale on purpose: a process that resolved for itself would import a and dep/one again.
    pointKept({ './a.mjs': 'b.mjs', dep: 'node_modules/dep/two.mjs' });
    expect(run(['./a.mjs', 'dep'])).toEqual(['b', 'dep/two']);
  });

  it('drops every answer when the lockfile, what pnpm installed, or a workspace package.json changes', () => {
    for (const changed of [
      'pnpm-lock.yaml',
      'node_modules/.modules.yaml',
      'packages/one/package.json',
      'services/two/package.json',
      'package.json',
      'pnpm-workspace.yaml',
    ]) {
      expect(run(['./a.mjs', 'dep'])).toEqual(['a', 'dep/one']);
      pointKept({ './a.mjs': 'b.mjs', dep: 'node_modules/dep/two.mjs' });
      expect(run(['./a.mjs', 'dep'])).toEqual(['b', 'dep/two']); // still the same checkout: the stale answer is taken
      appendFileSync(join(checkout, changed), '\n');
      expect(run(['./a.mjs', 'dep']), changed).toEqual(['a', 'dep/one']);
    }
  });

  it('resolves again an answer whose file is gone, and keeps the new answer', () => {
    run(['./a.mjs']);
    pointKept({ './a.mjs': 'moved-away.mjs' });
    expect(run(['./a.mjs'])).toEqual(['a']);
    expect(readKept().kept.resolutions.map(([, answer]) => answer)).toEqual([url('a.mjs')]);
  });

  it('keeps the answers of a program started through a link to the checkout, under its real path', () => {
    symlinkSync(checkout, join(dir, 'linked'));
    expect(run(['./a.mjs'], join(dir, 'linked', 'program.mjs'))).toEqual(['a']);
    expect(readKept().kept.resolutions.map(([key, answer]) => [key.split('\0')[0], answer])).toEqual([[url('program.mjs'), url('a.mjs')]]);
  });

  it('keeps nothing where flags change what resolves: symlinks kept as named, a loader (NODE_OPTIONS, command line, NODE_PRESERVE_SYMLINKS)', () => {
    for (const flag of ['--preserve-symlinks', '--preserve-symlinks-main', '--experimental-loader=data:text/javascript,']) {
      expect(run(['./a.mjs'], undefined, envWith({ NODE_COMPILE_CACHE: cache, NODE_OPTIONS: flag })), flag).toEqual(['a']);
      expect(keptFiles(cache), flag).toEqual([]);
    }
    // The same given on the command line, and --preserve-symlinks given by the environment.
    for (const flag of ['--preserve-symlinks', '--experimental-loader=data:text/javascript,']) {
      expect(run(['./a.mjs'], undefined, undefined, [flag]), flag).toEqual(['a']);
      expect(keptFiles(cache), flag).toEqual([]);
    }
    expect(run(['./a.mjs'], undefined, envWith({ NODE_COMPILE_CACHE: cache, NODE_PRESERVE_SYMLINKS: '1' }))).toEqual(['a']);
    expect(keptFiles(cache)).toEqual([]);
    // A flag that changes nothing of it keeps as before.
    expect(run(['./a.mjs'], undefined, envWith({ NODE_COMPILE_CACHE: cache, NODE_OPTIONS: '--max-semi-space-size=16' }))).toEqual(['a']);
    expect(keptFiles(cache)).toHaveLength(1);
  });

  it('keeps a program’s answers with NODE_PATH set (pnpm’s scripts set one) apart from those without', () => {
    run(['./a.mjs'], undefined, envWith({ NODE_COMPILE_CACHE: cache, NODE_PATH: join(checkout, 'node_modules') }));
    const [withPath] = keptFiles(cache);
    pointKept({ './a.mjs': 'b.mjs' });
    // Without it: not the answers made with it.
    expect(run(['./a.mjs'])).toEqual(['a']);
    expect(keptFiles(cache)).toHaveLength(2);
    expect(keptFiles(cache)).toContain(withPath);
    expect(run(['./a.mjs'], undefined, envWith({ NODE_COMPILE_CACHE: cache, NODE_PATH: join(checkout, 'node_modules') }))).toEqual(['b']);
  });

  it('starts empty from a kept file cut short, and writes it whole again', () => {
    run(['./a.mjs', 'dep']);
    const { path } = readKept();
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, whole.slice(0, whole.length >> 1));
    expect(run(['./a.mjs', 'dep'])).toEqual(['a', 'dep/one']);
    expect(readFileSync(path, 'utf8')).toBe(whole);
  });

  it('keeps the answers of two processes of one program running at once, each adding what it found to what the other wrote', async () => {
    // The first still runs (its answers written by its timer) while the second starts with no file, writes its own and ends.
    const first = spawn(process.execPath, [join(checkout, 'program.mjs'), './a.mjs', '--stay'], { env: envWith({ NODE_COMPILE_CACHE: cache }) });
    try {
      await once(first.stdout, 'data');
      expect(run(['./b.mjs'])).toEqual(['b']);
      await vi.waitFor(
        () =>
          expect(
            readKept()
              .kept.resolutions.map(([, answer]) => answer)
              .sort(),
          ).toEqual([url('a.mjs'), url('b.mjs')]),
        {
          timeout: 15_000,
          interval: 100,
        },
      );
    } finally {
      first.kill();
    }
  });

  it('keeps nothing without the compile cache, for a program outside the checkout, or for Node’s own modules', () => {
    expect(run(['./a.mjs'], undefined, envWith({ NODE_DISABLE_COMPILE_CACHE: '1' }))).toEqual(['a']);
    expect(keptFiles(cache)).toEqual([]);
    // The same program in a folder beside the checkout: outside it, though it names the checkout as its own.
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'program.mjs'), readFileSync(join(checkout, 'program.mjs'), 'utf8').replace("new URL('./'", "new URL('../checkout/'"));
    expect(run([pathToFileURL(join(checkout, 'a.mjs')).href], join(outside, 'program.mjs'))).toEqual(['a']);
    expect(keptFiles(cache)).toEqual([]);
    // Imports out of the checkout and from outside it are not kept: a module beside it that imports one of the checkout's.
    writeFileSync(join(outside, 'reaching-in.mjs'), "export { name } from '../checkout/a.mjs';\n");
    expect(run([pathToFileURL(join(outside, 'reaching-in.mjs')).href])).toEqual(['a']);
    expect(keptFiles(cache)).toEqual([]);
    // Node's own module is not kept; the checkout's own import is.
    expect(run(['node:os', './a.mjs'])).toEqual(['node:os', 'a']);
    expect(readKept().kept.resolutions.map(([key]) => key.split('\0')[1])).toEqual(['./a.mjs']);
  });

  it('writes a program’s answers while it runs, once it has resolved nothing new for a moment', async () => {
    const child = spawn(process.execPath, [join(checkout, 'program.mjs'), './a.mjs', '--stay'], { env: envWith({ NODE_COMPILE_CACHE: cache }) });
    try {
      await once(child.stdout, 'data');
      await vi.waitFor(() => expect(keptFiles(cache).filter((path) => path.endsWith('.json'))).toHaveLength(1), { timeout: 15_000, interval: 100 });
      expect(child.exitCode).toBeNull(); // still running: written by its timer, not at its exit
      expect(readKept().kept.resolutions.map(([, answer]) => answer)).toEqual([url('a.mjs')]);
    } finally {
      child.kill();
    }
  });
});

describe('a worker thread (thread-entry.mjs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wirehook-kept-resolutions-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts resolving-thread.mjs by startThread in a process of its own: ends it by terminate() if `stay`, or waits for its end. */
  const runThread = (stay: boolean): string => {
    const thread = new URL('./testing/resolving-thread.mjs', import.meta.url);
    const script = join(dir, 'thread-process.mjs');
    writeFileSync(
      script,
      `import { once } from 'node:events';
import { startThread } from ${JSON.stringify(new URL('./worker-thread.ts', import.meta.url).href)};
const worker = startThread(new URL(${JSON.stringify(thread.href)}), { argv: ${stay ? "['--stay']" : '[]'} });
${stay ? '' : "const exited = once(worker, 'exit'); // before its message: an ending thread's last message and its exit come in one turn"}
const [reply] = await once(worker, 'message');
${stay ? 'await worker.terminate();' : 'await exited;'}
process.stdout.write(JSON.stringify(reply));
`,
    );
    const cache = join(dir, 'cache');
    expect(JSON.parse(execFileSync(process.execPath, [script], { env: envWith({ NODE_COMPILE_CACHE: cache }), encoding: 'utf8', timeout: 20_000 }))).toBe(
      'errors.ts loaded',
    );
    const kept = keptIn(cache);
    expect(kept).toHaveLength(1); // the thread's (the process's own program is outside the checkout)
    return JSON.stringify(kept[0]!.resolutions.map(([key]) => key.split('\0').slice(0, 2)));
  };

  it('keeps the answers to its own imports, under its module', () => {
    const thread = new URL('./testing/resolving-thread.mjs', import.meta.url).href;
    expect(runThread(false)).toContain(JSON.stringify([thread, '../errors.ts']));
  });

  it('keeps them when its owner ends it by terminate(), as soon as its module has loaded (a thread so ended has no exit to write at)', () => {
    const thread = new URL('./testing/resolving-thread.mjs', import.meta.url).href;
    expect(runThread(true)).toContain(JSON.stringify([thread, '../errors.ts']));
  });
});

describe('the preload (keep-resolutions.mjs, in NODE_OPTIONS as ./dev puts it)', () => {
  const PRELOAD = `--import=${new URL('./keep-resolutions.mjs', import.meta.url).href}`;
  const PROGRAM = new URL('./testing/preloaded-program.mjs', import.meta.url);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wirehook-kept-resolutions-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `program` with the preload in a compile cache of the test's own: what it printed. */
  const runPreloaded = (program: string, args: string[] = [], node = process.execPath): string[] =>
    JSON.parse(
      execFileSync(node, [program, ...args], {
        env: envWith({ NODE_COMPILE_CACHE: join(dir, 'cache'), NODE_OPTIONS: PRELOAD }),
        encoding: 'utf8',
        timeout: 20_000,
      }),
    ) as string[];

  it('keeps a program of this checkout’s answers, and a plain worker thread’s preload keeps none of its own', () => {
    expect(runPreloaded(fileURLToPath(PROGRAM), ['--thread'])).toEqual(['cache-file.mjs', 'kept-resolutions.mjs in a thread']);
    const kept = keptIn(join(dir, 'cache'));
    // One file, the program's: its own import; nothing of the thread's, which has no program of its own here.
    expect(kept).toHaveLength(1);
    expect(kept[0]!.resolutions.map(([key, answer]) => [key.split('\0').slice(0, 2), answer])).toEqual([
      [[PROGRAM.href, '../cache-file.mjs'], new URL('./cache-file.mjs', import.meta.url).href],
    ]);
  });

  it('keeps nothing for a program outside the checkout, though it imports the checkout’s modules', () => {
    const outside = join(dir, 'outside.mjs');
    writeFileSync(outside, `await import(${JSON.stringify(new URL('./cache-file.mjs', import.meta.url).href)});\nprocess.stdout.write('["outside"]');\n`);
    expect(runPreloaded(outside)).toEqual(['outside']);
    expect(keptIn(join(dir, 'cache'))).toEqual([]);
  });

  it('keeps nothing for code given by -e, though its first argument names a program of the checkout', () => {
    // Run from the checkout, the code's own imports are the checkout's ([eval]'s parent is the working folder).
    const code = "await import('./cache-file.mjs'); process.stdout.write(JSON.stringify(['evaluated']))";
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code, fileURLToPath(PROGRAM)], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      env: envWith({ NODE_COMPILE_CACHE: join(dir, 'cache'), NODE_OPTIONS: PRELOAD }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(out)).toEqual(['evaluated']);
    expect(keptIn(join(dir, 'cache'))).toEqual([]);
  });

  it('lets a Node without process.getBuiltinModule (before 20.16 or 22.3) run as without it', () => {
    // Such a Node, made: the function taken away by a preload that runs before this one. (Any program: the
    // preload asks before it looks at one; the checkout's own modules take their built-ins by that function.)
    const program = join(dir, 'plain.mjs');
    writeFileSync(program, 'process.stdout.write(JSON.stringify([typeof process.getBuiltinModule]));\n');
    const env = envWith({ NODE_COMPILE_CACHE: join(dir, 'cache'), NODE_OPTIONS: `--import=data:text/javascript,delete%20process.getBuiltinModule ${PRELOAD}` });
    expect(JSON.parse(execFileSync(process.execPath, [program], { env, encoding: 'utf8', timeout: 20_000 }))).toEqual(['undefined']);
  });

  // The machine's own Node before 22 (a fresh machine's is 20) may run under ./dev's NODE_OPTIONS: it has no
  // registerHooks, so it only resolves, as it would without the preload.
  const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find((node) => {
    try {
      return Number(/^v(\d+)/.exec(execFileSync(node, ['--version'], { encoding: 'utf8' }))?.[1]) < 22;
    } catch {
      return false;
    }
  });
  it.skipIf(olderNode === undefined)('lets an older Node (the machine’s own, before 22) run as without it', () => {
    expect(runPreloaded(fileURLToPath(PROGRAM), [], olderNode)).toEqual(['cache-file.mjs']);
    expect(keptIn(join(dir, 'cache'))).toEqual([]);
  });
});
