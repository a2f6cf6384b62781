// The watchdog where a thread's CPU time cannot be read (no /proc/<tid>/schedstat: not Linux,
// gVisor): every reading fails here, so the wall clock alone decides, as if the run had used it
// all — a built-in that never polls the interrupt is still ended at budget + grace with the CPU
// budget's error, not left to run to the wall-clock limit.
import { describe, expect, it, vi } from 'vitest';
import { TransformRunner } from './transform-runner.ts';
import type { TransformInput } from './transform-types.ts';

const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('./thread-cpu.ts', async (original) => ({
  ...(await original<typeof import('./thread-cpu.ts')>()),
  threadCpuMicrosOf: () => {
    reads.count++;
    return null;
  },
}));

const NOW = 1_780_000_000_000;
const input: TransformInput = { event_type: 'order.created', payload: { order_id: 'o_1' }, headers: {}, url: 'https://hooks.example.com/in' };

describe('the watchdog without a reading of the thread’s CPU', () => {
  it('ends a built-in that never polls at budget + grace (the CPU budget’s error), long before the wall-clock limit', async () => {
    // A wall-clock limit of 60 s: were an unreadable thread taken for one waiting for a core, this
    // run (a naive substring search in C, 18 s here) would outlast the test's 15 s (checked). A grace of
    // 1 s: with no reading every run here is ended at budget + grace of wall clock, the trivial ones
    // too, and a busy machine may hold one that long.
    const runner = new TransformRunner({ watchdogGraceMs: 1_000, wallLimitMs: 60_000 });
    try {
      await runner.run('function handler(w) { return w }', input, NOW);
      const code = "function handler(w) { 'a'.repeat(300000).indexOf('a'.repeat(100000) + 'b'); return w }";
      expect(await runner.run(code, input, NOW)).toEqual({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' });
      // The thread's reading was asked for (at its start at least), and failed.
      expect(reads.count).toBeGreaterThan(0);
      expect(await runner.run('function handler(w) { return w }', input, NOW)).toMatchObject({ ok: true });
    } finally {
      await runner.close();
    }
  }, 15_000);
});
