import { BroadcastChannel, Worker, type WorkerOptions } from 'node:worker_threads';

const THREAD_ENTRY = new URL('./thread-entry.mjs', import.meta.url);
/** The channel threads post the modules they stripped on (named to each in its first message). */
const SOURCES_CHANNEL = 'wirehook:thread-sources';
/** Stripped modules kept at most: the process's own modules are far fewer; a bound all the same. */
const MAX_KEPT_SOURCES = 5_000;

/**
 * The `.ts` modules threads of this process stripped, by URL: handed to each new thread
 * (thread-entry.mjs says why). Only Wirehook's own code runs in its threads (a transformation's
 * runs inside QuickJS, which has no BroadcastChannel), so only it can post here.
 */
const keptSources = new Map<string, string>();
let listening: BroadcastChannel | undefined;

function keepSources(): void {
  if (listening !== undefined) return;
  listening = new BroadcastChannel(SOURCES_CHANNEL);
  listening.unref(); // keeping modules never keeps the process alive
  listening.onmessage = (event) => {
    const [url, source] = (event as { data: [string, string] }).data;
    if (keptSources.size < MAX_KEPT_SOURCES) keptSources.set(url, source);
  };
}

/** The stripped source of `module` a thread of this process posted, if any (what the next thread is handed). */
export function keptThreadSource(module: URL): string | undefined {
  return keptSources.get(module.href);
}

/**
 * A worker thread running the TypeScript module `main`, its types stripped without WebAssembly
 * (thread-entry.mjs says why: Node's own stripping is WebAssembly in every thread, where its engine
 * crashes come from), each module once a process (and once a machine, with Node's compile cache
 * on). Every thread Wirehook starts on a `.ts` module starts here.
 */
export function startThread(main: URL, options: WorkerOptions = {}): Worker {
  keepSources();
  const worker = new Worker(THREAD_ENTRY, { ...options, argv: [main.href, ...(options.argv ?? [])] });
  // Its first message, before any of its owner's: thread-entry.mjs takes it before the thread's module loads.
  worker.postMessage({ threadSources: [...keptSources], channel: SOURCES_CHANNEL });
  return worker;
}
