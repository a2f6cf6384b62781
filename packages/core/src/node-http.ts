/**
 * Node's `http` module as its CommonJS exports, not through an ESM import: an import of a built-in
 * module makes Node read each of its exports for the module's namespace, and `http`'s lazy
 * `WebSocket` then loads Node's bundled undici (≈ 60 ms of CPU at every process's start, measured;
 * no Wirehook process uses it). Type-only imports of `node:http` stay as they are (erased).
 */
export const nodeHttp: typeof import('node:http') = process.getBuiltinModule('node:http');
