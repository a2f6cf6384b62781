/**
 * Node's `http` module as its CommonJS exports, not through an ESM import: an import of a built-in
 * module makes Node read each of its exports for the module's namespace, and `http`'s lazy
 * `WebSocket` then loads Node's bundled undici (≈ 60 ms of CPU at every process's start, measured;
 * no Wirehook process uses it). Asked for when used, not when `@wirehook/core` loads: a store
 * thread, which serves no HTTP, would pay ≈ 4–7 ms to load it (measured). Type-only imports of
 * `node:http` stay as they are (erased).
 */
export function nodeHttp(): typeof import('node:http') {
  return process.getBuiltinModule('node:http');
}
