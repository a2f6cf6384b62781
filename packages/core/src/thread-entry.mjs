// A worker thread's first module, written in JavaScript so that Node loads it without stripping types.
//
// Node strips a `.ts` module's types with WebAssembly (its swc build, amaro), compiled into each
// thread that loads one. WebAssembly in threads that start and end is what V8's `jit_page` check
// and the segfaults of scripts/engine-crashes.ts come of (nodejs/node#64500): a thread freeing the
// process's shared WebAssembly wrappers while another compiles. Here a thread's `.ts` modules are
// stripped by sucrase instead, in JavaScript, so the store threads run no WebAssembly at all; an
// egress thread still compiles undici's HTTP parser (llhttp) at its first connection and a
// transformation thread QuickJS, which nothing here can take away. Every line stays where it was
// (columns may not), so a stack trace names the `.ts` file's own lines. Its options give Node's
// semantics for the syntax `erasableSyntaxOnly` allows (tsconfig.json): only the types go
// (`import type` and the types themselves; every other import stays, as `verbatimModuleSyntax`
// writes them), and no newer JavaScript is rewritten.
//
// Stripping in a thread that has just started is slow (sucrase loaded and run cold, ≈ 200 ms of
// CPU for the egress thread's modules), so each module is stripped once a process: a thread posts
// what it stripped on a BroadcastChannel, startThread (worker-thread.ts) keeps it, and hands a new
// thread all it has kept as the thread's first message, taken here before anything else can read
// it. A thread that finds all its modules there never loads sucrase. A module is kept as it was
// when first stripped, as the main thread's own modules are: a file changed on disk while the
// process runs is not read again.
//
// Across processes, with Node's compile cache on (NODE_COMPILE_CACHE: `./dev` sets it), what a
// thread strips is also kept on disk beside that cache, named by a hash of the source and of
// sucrase's path and options, so a process's first thread strips nothing another process has
// stripped: seven of a cluster's eight service processes each stripped their thread's modules
// cold (sucrase 26–34 % of such a thread's busy time, profiled). A file is written whole and
// renamed into place, so a reader sees all of it or none, and ends with its hash, so one cut
// short by a machine stopped before its disk had it is stripped again, not run; a cache that
// cannot be written (a read-only disk) is only not kept. Whoever can write that directory can
// change what runs, as with Node's own entries there (its stripped TypeScript is kept too): it is
// the user's (`./dev`: `.tools/`). An entry is named by its source, so each edit adds one and
// nothing prunes them (Node names its own by the file): removing the folder is always safe.
//
// startThread puts the thread's own module first in its argv; it is taken off before that module
// runs, and `process.argv[1]` names that module, as it would as a thread's own entry, so the
// thread sees the argv it would have had.
import { sha256, writeWhole } from './cache-file.mjs';
import { keepResolutions } from './kept-resolutions.mjs';

// Built-ins as cache-file.mjs takes them (its first lines say why): every thread pays its imports.
const { readFileSync } = process.getBuiltinModule('node:fs');
const { createRequire, getCompileCacheDir, registerHooks } = process.getBuiltinModule('node:module');
const { join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const { parentPort, receiveMessageOnPort } = process.getBuiltinModule('node:worker_threads');

const SUCRASE_OPTIONS = { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true };

/** @type {{ threadSources: [string, string][]; channel: string } | undefined} startThread's first message */
const handed = firstMessage();
/** The modules handed over stripped already, by URL. */
const sources = new Map(handed?.threadSources ?? []);
/** Where this thread posts what it strips, for startThread to keep (its name comes with the message). */
const kept = new BroadcastChannel(handed?.channel ?? 'wirehook:thread-sources');
kept.unref();
/** @type {((code: string, options: object) => { code: string }) | undefined} loaded on the first module not handed over */
let transform;
/** @type {{ dir: string; key: (typed: string) => string } | undefined} */
const diskCache = diskCacheOf(getCompileCacheDir());

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
    let source = sources.get(url);
    if (source === undefined) {
      const filePath = fileURLToPath(url);
      const typed = readFileSync(filePath, 'utf8');
      const stored = diskCache === undefined ? undefined : join(diskCache.dir, `${diskCache.key(typed)}.js`);
      source = stored === undefined ? undefined : readIfThere(stored);
      if (source === undefined) {
        transform ??= createRequire(import.meta.url)('sucrase').transform;
        source = transform(typed, { ...SUCRASE_OPTIONS, filePath }).code;
        if (stored !== undefined) store(stored, source);
      }
      kept.postMessage([url, source]);
    }
    return { format: 'module', source, shortCircuit: true };
  },
});

/**
 * startThread's first message, taken before the thread's module can see it. startThread posts it
 * just after making the thread, which starts at once: on a busy machine the thread got here first
 * and found none, and the message then reached the module as its owner's first (the store thread's
 * `calls is not iterable`, CI 2026-12-06). So it waits for it, a millisecond at a time (it is
 * always posted; a thread not made by startThread goes on without it after 10 s).
 */
function firstMessage() {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 10_000; waited++) {
    const received = receiveMessageOnPort(parentPort);
    if (received !== undefined) return received.message;
    Atomics.wait(pause, 0, 0, 1);
  }
  return undefined;
}

/** What ends a kept source: its hash follows. */
const SEAL = '\n//# wirehook-thread-source-sha256=';

/** Where stripped sources are kept across processes, and each one's name: none without Node's compile cache. */
function diskCacheOf(compileCache) {
  if (compileCache === undefined) return undefined;
  /** @type {string | undefined} resolved at the first module not handed over, not by every thread */
  let salt;
  return {
    dir: join(compileCache, 'wirehook-thread-sources'),
    key: (typed) => {
      // sucrase's resolved path names its version (pnpm's store), and the options are part of what it wrote.
      salt ??= `${createRequire(import.meta.url).resolve('sucrase')}\0${JSON.stringify(SUCRASE_OPTIONS)}\0`;
      return sha256(salt + typed);
    },
  };
}

/** A kept source, or undefined when there is none, it cannot be read, or it is not whole (its last line's hash). */
function readIfThere(file) {
  let kept;
  try {
    kept = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const end = kept.lastIndexOf(SEAL);
  if (end < 0) return undefined;
  const source = kept.slice(0, end);
  return kept.slice(end + SEAL.length) === sha256(source) ? source : undefined;
}

/** Keeps a stripped source, whole, its hash on a last line of its own (no line above moves): a file cut short or emptied (a machine stopped before the disk had it) is read as missing, not run. */
function store(file, source) {
  writeWhole(file, `${source}${SEAL}${sha256(source)}`);
}

const [main] = process.argv.splice(2, 1);
process.argv[1] = fileURLToPath(main);
// A thread keeps its imports' answers under its own module (keep-resolutions.mjs leaves threads
// to this), written once its module has loaded: a thread ended by terminate() has no exit.
const writeResolutions = keepResolutions(main);
await import(main);
writeResolutions();
