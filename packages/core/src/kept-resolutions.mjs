// Node's module resolution, kept across processes beside its compile cache.
//
// Every Wirehook process resolves ≈ 2,000 imports as it starts (a store thread ≈ 500), and a
// resolution is work Node keeps only for the process: each walks up for `package.json` files,
// reads their `exports`, and asks the disk for the real path behind pnpm's links. Profiled, the
// module loader was ≈ 38 % of a service's start; kept here, the gateway's import cost ≈ 750 ms of
// CPU against ≈ 1,000 (docs/benchmarks.md, fortieth session). With Node's compile cache on
// (NODE_COMPILE_CACHE: `./dev` sets it, and loads this through NODE_OPTIONS), each process, and
// each worker thread (thread-entry.mjs), keeps what it resolved in a file of its own beside that
// cache, one a program (the process's main module, or the thread's), and reads it at its next start.
//
// A kept answer is used only while nothing it could depend on has changed, which is said three ways:
// - only this checkout's files are kept (an import from a file of the repository, or of its
//   node_modules, to another such file): a program outside it, or an import into or out of it
//   (a test's temporary project, Node's own modules), is resolved as before and never kept;
// - the answers are dropped when Node's version or any file that says how a name resolves
//   changes: the lockfile, what pnpm installed (node_modules/.modules.yaml), a workspace
//   package's `package.json` (its `exports`, its `imports`) — each named by its size and time;
// - an answer whose file is gone is resolved again, so a file moved or deleted gives Node's own
//   answer (its error, or the new place), never a stale one.
// What is not said: a file added beside a kept answer that Node would prefer, which only
// CommonJS's guessing of extensions can do (`require('./x')` finding `x.js` before `x/index.js`);
// a package.json inside node_modules edited by hand, or one added elsewhere than the workspace's
// packages (none here has `imports` of its own); a loader's asynchronous hooks registered at run
// time (module.register: Node runs hooks like these first, so a kept answer passes it by; nothing
// here registers one). Removing the cache folder undoes each (a running process writes only what
// it resolved itself). A process whose flags change resolution keeps and takes nothing: a loader
// (--loader), symlinks kept as named (--preserve-symlinks, or NODE_PRESERVE_SYMLINKS=1). NODE_PATH, which pnpm's scripts set
// (so every test's processes have one), names a file of its own: a program's answers with it are
// never taken without it.
//
// A file is written whole under a name of the writer's own and renamed into place; one that
// cannot be read or parsed is an empty start, one that cannot be written is only not kept.
import { sha256, writeWhole } from './cache-file.mjs';
import { CHECKOUT, checkoutFiles, checkoutProgramUrl } from './checkout-program.mjs';

// Built-ins as cache-file.mjs takes them (its first lines say why).
const { readdirSync, readFileSync, statSync } = process.getBuiltinModule('node:fs');
const nodeModule = process.getBuiltinModule('node:module');
const { join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
/** Answers kept at most a program: this repository's imports are far fewer; a bound all the same. */
const MAX_KEPT = 20_000;
/** How long after its last new answer a program writes its file (and at its exit, if it ends first). */
const WRITE_AFTER_MS = 2_000;

/**
 * Keeps the answers Node's resolution gives for `program` (a path or file URL: the process's main
 * module, or a thread's) across processes. Does nothing without Node's compile cache (or on a Node
 * without it or `registerHooks`), or for a program that is no file of the checkout (`checkout`:
 * this one; another only in tests). Call it before the program's own imports are resolved.
 * Returns what writes the answers found since the last write (also done at the process's exit and
 * a moment after the last new answer; a thread ended by `terminate()` has no exit to write at).
 */
export function keepResolutions(program, checkout = CHECKOUT) {
  // The cheap questions first: a thread with no compile cache asks the disk nothing.
  const cacheDir = program === undefined ? undefined : cacheDirToKeepIn();
  if (cacheDir === undefined) return NONE;
  const programUrl = checkoutProgramUrl(program, checkout);
  return programUrl === undefined ? NONE : keepIn(cacheDir, programUrl, checkout);
}

/**
 * keepResolutions for a program already found to be a file of `checkout` (`programUrl`: what
 * checkoutProgramUrl answered), as the preload finds it before it imports this: not asked twice.
 */
export function keepCheckoutProgram(programUrl, checkout = CHECKOUT) {
  const cacheDir = cacheDirToKeepIn();
  return cacheDir === undefined ? NONE : keepIn(cacheDir, programUrl, checkout);
}

/** Keeps `programUrl`'s answers in `cacheDir` (both found by the callers above). */
function keepIn(cacheDir, programUrl, checkout) {
  const inCheckout = checkoutFiles(checkout);
  // CommonJS's last resort for a bare name, NODE_PATH, answers only where it is set: a file of its own.
  const nodePath = process.env.NODE_PATH ?? '';
  const file = join(cacheDir, 'wirehook-resolutions', `${sha256(nodePath === '' ? programUrl : `${programUrl}\0${nodePath}`).slice(0, 32)}.json`);
  const fingerprint = fingerprintOf(checkout);
  const kept = readKept(file, fingerprint);
  /** What this process resolved itself: all it writes (what it read may be older than the file by then). */
  const found = new Map();
  let timer;
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    if (found.size === 0) return;
    // The checkout changed under a running program: its answers may be stale, and the file another's.
    if (fingerprintOf(checkout) === fingerprint) writeKept(file, fingerprint, found);
    found.clear();
  };
  process.once('exit', write);
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (parent === undefined || !inCheckout(parent)) return nextResolve(specifier, context);
      const key = `${parent}\0${specifier}\0${context.conditions?.join(',') ?? ''}`;
      const url = kept.get(key);
      if (url !== undefined && statSync(fileURLToPath(url), { throwIfNoEntry: false }) !== undefined) {
        // Its format is not kept: Node's load gives it from the file as it would.
        return { url, shortCircuit: true };
      }
      const resolved = nextResolve(specifier, context);
      if (inCheckout(resolved.url) && kept.size < MAX_KEPT) {
        kept.set(key, resolved.url);
        found.set(key, resolved.url);
        clearTimeout(timer);
        timer = setTimeout(write, WRITE_AFTER_MS);
        timer.unref(); // keeping answers never keeps the process alive
      }
      return resolved;
    },
  });
  return write;
}

/** What keepResolutions returns where it keeps nothing. */
const NONE = () => {};

/** Node's compile cache folder, where answers are kept; none without it, on a Node that cannot keep them, or under flags that change resolution. */
function cacheDirToKeepIn() {
  // An older Node (a machine's own Node 20 under ./dev's NODE_OPTIONS) has neither: it only resolves.
  const { getCompileCacheDir, registerHooks } = nodeModule;
  if (typeof getCompileCacheDir !== 'function' || typeof registerHooks !== 'function' || resolutionFlagged()) return undefined;
  return getCompileCacheDir();
}

/** Node's own flags (or NODE_OPTIONS) that change what a resolution answers, or who answers it. */
const RESOLUTION_FLAGS = /(?:^|\s)--(?:preserve-symlinks(?:-main)?|loader|experimental-loader)(?:[\s=]|$)/;

/** Whether this process resolves otherwise than by Node's defaults, which is what the kept answers were made by. */
function resolutionFlagged() {
  const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  // NODE_PRESERVE_SYMLINKS=1 is --preserve-symlinks given by the environment.
  return RESOLUTION_FLAGS.test(flags) || process.env.NODE_PRESERVE_SYMLINKS === '1';
}

/** What this checkout's resolution depends on, as sizes and times: Node's version, the lockfile, what pnpm installed, each package.json. */
function fingerprintOf(checkout) {
  const files = ['pnpm-lock.yaml', 'node_modules/.modules.yaml', 'package.json', 'pnpm-workspace.yaml'];
  for (const group of ['packages', 'services']) {
    let names = [];
    try {
      names = readdirSync(new URL(`${group}/`, checkout));
    } catch {}
    for (const name of names.sort()) files.push(`${group}/${name}/package.json`);
  }
  const parts = [process.version];
  for (const name of files) {
    const stat = statSync(new URL(name, checkout), { throwIfNoEntry: false });
    parts.push(`${name}:${stat === undefined ? '-' : `${stat.size}:${stat.mtimeMs}`}`);
  }
  return sha256(parts.join('\n'));
}

/** The answers a program kept, or none when its file is missing, unreadable, or of another fingerprint. */
function readKept(file, fingerprint) {
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    if (stored.fingerprint === fingerprint && Array.isArray(stored.resolutions)) return new Map(stored.resolutions);
  } catch {}
  return new Map();
}

/** Adds the answers a process found to the program's file as it is now (other processes of the program write it too). */
function writeKept(file, fingerprint, found) {
  const merged = readKept(file, fingerprint);
  for (const [key, url] of found) if (merged.size < MAX_KEPT || merged.has(key)) merged.set(key, url);
  writeWhole(file, JSON.stringify({ fingerprint, resolutions: [...merged] }));
}
