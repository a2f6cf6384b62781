import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUICKJS_WASM_URL } from './quickjs-module.ts';
import { wasmLayoutOf } from './wasm-layout.ts';

describe('wasmLayoutOf', () => {
  it("reads the QuickJS build's memory import and where its heap starts", () => {
    const layout = wasmLayoutOf(readFileSync(QUICKJS_WASM_URL));
    // quickjs-emscripten 0.32.0: 16 MiB initial memory, 2 GiB at most, a 5 MiB stack after ~85 KB of data.
    expect(layout).toEqual({ heapStartBytes: 5_333_088, minPages: 256, maxPages: 32_768 });
  });

  it('refuses bytes without a memory import', () => {
    // An empty module: magic number and version only.
    expect(() => wasmLayoutOf(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toThrow('no imported memory or stack pointer');
  });
});
