// Loaded before a process's main module (`./dev` puts it in NODE_OPTIONS as `--import`): the
// process keeps Node's answers to its imports across starts (kept-resolutions.mjs says how and when).
// Node runs a preload in each worker thread too, its argv[1] the thread's entry: a Wirehook
// thread keeps its own program's answers (thread-entry.mjs), not one file for every thread.
import { isMainThread } from 'node:worker_threads';
import { keepResolutions } from './kept-resolutions.mjs';

if (isMainThread) keepResolutions(process.argv[1]);
