// Loaded before a process's main module (`./dev` puts it in NODE_OPTIONS as `--import`): the
// process keeps Node's answers to its imports across starts (kept-resolutions.mjs says how and when).
import { keepResolutions } from './kept-resolutions.mjs';

keepResolutions(process.argv[1]);
