// @wirehook/core without the API's schemas: what a worker thread's modules import (the store's
// writer and reader, the egress thread), and what they need nothing more of. The package's root
// ('@wirehook/core', index.ts) also builds every zod schema of the API as it loads — ≈ 150 ms of
// CPU in each thread that imports it, a third of a store thread's start (measured:
// docs/benchmarks.md) — where these modules build none. The same modules as the root's (one
// instance each, so an error class is the same class either way); none of them imports zod, and
// test/e2e/thread-imports.test.ts keeps it so in each thread.
export * from './alert-thresholds.ts';
export * from './clock.ts';
export * from './errors.ts';
export * from './endpoint-stats.ts';
export * from './ids.ts';
export * from './latency-histogram.ts';
export * from './limits.ts';
export * from './ordering-key-header.ts';
export * from './model.ts';
export * from './oauth-token.ts';
export * from './required-on-first-use.ts';
export * from './thousands.ts';
export * from './turn-outbox.ts';
export * from './unless-aborted.ts';
export * from './worker-thread.ts';
