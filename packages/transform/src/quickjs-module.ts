import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import variantExport from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { WASM_PAGE_BYTES, wasmLayoutOf } from './wasm-layout.ts';

/** The QuickJS build's WebAssembly file (the release, synchronous variant). */
export const QUICKJS_WASM_URL = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');

// The package's types are its CommonJS ones, where a default import is the module object;
// Node's ESM import takes its index.mjs, whose default export is the variant itself.
const variant = variantExport as unknown as QuickJSSyncVariant;

/** A thread's QuickJS module and the memory it allocates from. */
export interface LoadedQuickJs {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  /** How many times the heap asked to grow past the cap so far: a run that moved it was out of memory. */
  refusedGrowths: () => number;
}

/**
 * Loads QuickJS into a WebAssembly memory that cannot grow past the heap's start plus
 * `memoryLimitBytes`: the memory limit that holds. QuickJS's own (JS_SetMemoryLimit) counts
 * each allocation by malloc_usable_size, which Emscripten builds lack: it sees 8 bytes per
 * allocation, so it refuses single allocations over the limit and nothing cumulative (40
 * buffers of 1 MiB were allowed under a 16 MiB limit). With the memory capped, malloc fails
 * when the heap is full and QuickJS throws its out-of-memory error. The cap is the whole
 * heap's; runs are one at a time on a fresh runtime, so each run has the heap to itself
 * (quickjs-emscripten's few allocations between runs aside).
 */
export async function loadQuickJs(memoryLimitBytes: number): Promise<LoadedQuickJs> {
  const bytes = await readFile(QUICKJS_WASM_URL);
  const layout = wasmLayoutOf(bytes);
  const pages = Math.ceil((layout.heapStartBytes + memoryLimitBytes) / WASM_PAGE_BYTES);
  const memory = new WebAssembly.Memory({ initial: layout.minPages, maximum: Math.min(layout.maxPages, Math.max(layout.minPages, pages)) });
  // QuickJS reports some allocation failures by throwing null (no memory left for an error
  // object): a growth refused during the run tells those apart from the code's own `throw null`.
  // Emscripten asks for up to 20 % more than it needs and takes its own refusals as a failed
  // malloc only after four tries, so a refusal means the heap came within that of the cap.
  let refused = 0;
  const grow = memory.grow.bind(memory);
  memory.grow = (delta: number) => {
    try {
      return grow(delta);
    } catch (err) {
      refused++;
      throw err;
    }
  };
  const wasmModule = await WebAssembly.compile(bytes);
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory: memory }));
  return { module, memory, refusedGrowths: () => refused };
}
