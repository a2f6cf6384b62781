/** What a sandbox thread needs to know of the QuickJS WebAssembly binary before instantiating it. */
export interface WasmLayout {
  /** Where malloc's heap begins: past the static data and Emscripten's stack (the stack pointer's start). */
  heapStartBytes: number;
  /** The imported memory's declared minimum and maximum, in 64 KiB pages. */
  minPages: number;
  maxPages: number;
}

/** A WebAssembly memory page. */
export const WASM_PAGE_BYTES = 65_536;

/**
 * Reads the layout of an Emscripten build from its bytes: the imported memory's limits (import
 * section), the first global's start value (`__stack_pointer`, the top of the stack, which
 * Emscripten places after the static data) and the end of the active data segments; the heap
 * begins past both.
 * @throws Error when the bytes have no imported memory or no i32 global to read.
 */
export function wasmLayoutOf(bytes: Uint8Array): WasmLayout {
  let at = 8; // past the magic number and version
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++]!;
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  };
  const constI32 = (): number => {
    if (bytes[at++] !== 0x41) throw new Error('QuickJS WebAssembly: an initialiser is not i32.const');
    const value = leb();
    at++; // end
    return value;
  };
  let memory: { minPages: number; maxPages: number } | undefined;
  let stackTop: number | undefined;
  let dataEnd = 0;
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 2) {
      for (let n = leb(); n > 0; n--) {
        // Names: a length, then the bytes (`at += leb()` would add to the `at` read before the length).
        for (let name = 0; name < 2; name++) {
          const length = leb();
          at += length;
        }
        const kind = bytes[at++];
        if (kind === 0) {
          leb(); // a function: its type index
        } else if (kind === 3) {
          at += 2; // a global: its type and mutability
        } else {
          if (kind === 1) at++; // a table: its element type, then limits like a memory's
          const flags = bytes[at++]!;
          const minPages = leb();
          const maxPages = flags & 1 ? leb() : 65_536;
          if (kind === 2) memory = { minPages, maxPages };
        }
      }
    } else if (id === 6 && leb() > 0) {
      at += 2; // type and mutability
      stackTop = constI32();
    } else if (id === 11) {
      for (let n = leb(); n > 0; n--) {
        const kind = leb(); // 0: active in memory 0, 1: passive, 2: active in the memory indexed next
        if (kind === 2) leb();
        const offset = kind === 1 ? undefined : constI32();
        const length = leb();
        if (offset !== undefined) dataEnd = Math.max(dataEnd, offset + length);
        at += length;
      }
    }
    at = end;
  }
  if (!memory || stackTop === undefined) throw new Error('QuickJS WebAssembly: no imported memory or stack pointer found');
  return { heapStartBytes: Math.max(stackTop, dataEnd), ...memory };
}
