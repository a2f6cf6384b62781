// A worker thread's first module, written in JavaScript so that Node loads it without stripping types.
//
// Node strips a `.ts` module's types with WebAssembly (its swc build, amaro), loaded into each thread
// that loads one. WebAssembly in threads that start and end is what V8's `jit_page` check and the
// segfaults of scripts/engine-crashes.ts come of (nodejs/node#64500): a thread freeing the process's
// shared WebAssembly wrappers while another compiles. Here a thread's `.ts` modules are stripped by
// sucrase instead: JavaScript only, no WebAssembly, and every line stays where it was, so a stack
// trace names the `.ts` file's own lines (Node's stripping keeps them too). Its options give Node's
// semantics: only the types go (`import type` and the types themselves; every other import stays,
// as `verbatimModuleSyntax` writes them), and no newer JavaScript is rewritten.
//
// startThread (worker-thread.ts) puts the thread's own module first in its argv; it is taken off
// before that module runs, so the thread sees the argv it was given.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transform } from 'sucrase';

const SUCRASE_OPTIONS = { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true };

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
    const filePath = fileURLToPath(url);
    const { code } = transform(readFileSync(filePath, 'utf8'), { ...SUCRASE_OPTIONS, filePath });
    return { format: 'module', source: code, shortCircuit: true };
  },
});

const [main] = process.argv.splice(2, 1);
await import(main);
