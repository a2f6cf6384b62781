import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { EXIT_WAIT_MS, threadExits } from './thread-exits.ts';

/** A thread that stays until it is ended (a port listener holds it). */
const idle = () => new Worker("require('node:worker_threads').parentPort.on('message', () => {})", { eval: true });

describe('threadExits', () => {
  it('waits for the threads let go of, not for those still in use, and for none once they have exited', async () => {
    expect(threadExits.exiting()).toBeUndefined();
    const [going, kept] = [idle(), idle()];
    threadExits.watch(going);
    threadExits.watch(kept);
    expect(threadExits.exiting()).toBeUndefined(); // both in use
    threadExits.letGo(going);
    let gone = false;
    const waiting = threadExits.exiting()?.then(() => expect(gone).toBe(true));
    expect(waiting).toBeInstanceOf(Promise);
    await going.terminate();
    gone = true;
    await waiting;
    expect(threadExits.exiting()).toBeUndefined();
    await kept.terminate();
    threadExits.letGo(kept); // already exited: nothing to wait for
    expect(threadExits.exiting()).toBeUndefined();
  });

  it('follows a thread that ends on its own', async () => {
    const ending = new Worker('process.exit(3)', { eval: true });
    threadExits.watch(ending);
    threadExits.letGo(ending);
    await threadExits.exiting();
    expect(threadExits.exiting()).toBeUndefined();
  });

  it(`waits ${EXIT_WAIT_MS} ms at most for a thread that does not exit`, async () => {
    expect(EXIT_WAIT_MS).toBe(10_000);
    const stuck = idle();
    threadExits.watch(stuck);
    threadExits.letGo(stuck); // not ended: it stays, as one inside a native call would
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let waited = false;
      const waiting = threadExits.exiting()!.then(() => (waited = true));
      await vi.advanceTimersByTimeAsync(EXIT_WAIT_MS - 1);
      expect(waited).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(waited).toBe(true);
    } finally {
      vi.useRealTimers();
      await stuck.terminate();
    }
    expect(threadExits.exiting()).toBeUndefined();
  });
});
