// StreakClears: a recovering endpoint's successes clearing its streak share writes, one in flight an endpoint.
import { describe, expect, it, vi } from 'vitest';
import { byNextTurn } from '../../test/next-turn.ts';
import { StreakClears } from './streak-clears.ts';

/** A write each call of which waits until the test answers it. */
function heldWrites() {
  const calls: { key: string; at: number; answer: (r: string) => void; refuse: (err: unknown) => void }[] = [];
  const writeOf = (key: string) => (at: number) => new Promise<string>((resolve, reject) => calls.push({ key, at, answer: resolve, refuse: reject }));
  return { calls, writeOf };
}

describe('StreakClears', () => {
  it('writes the first at once; those that come while it is in flight share one write after it, at the latest of their times', async () => {
    const clears = new StreakClears<string>();
    const { calls, writeOf } = heldWrites();
    const first = clears.clear('ep_1', 100, writeOf('ep_1'));
    // Twenty successes of a drain finishing while the first clear is out: none written yet.
    const joined = Array.from({ length: 20 }, (_, i) => clears.clear('ep_1', 101 + (i % 7) * 10, writeOf('ep_1')));
    expect(calls.map((c) => c.at)).toEqual([100]);
    calls[0]!.answer('confirmed');
    expect(await first).toBe('confirmed');
    // Sent only once the one in flight settled (after every joiner's read), with the latest time: 101 + 6 × 10.
    await byNextTurn(Promise.resolve());
    expect(calls.map((c) => c.at)).toEqual([100, 161]);
    expect(await byNextTurn(Promise.all(joined))).toBe('waiting');
    calls[1]!.answer('unconfirmed');
    expect(new Set(await Promise.all(joined))).toEqual(new Set(['unconfirmed']));
    expect(clears.inFlight).toBe(0);
  });

  it('never joins the write in flight (its read may have come after it was sent): a lone second success still writes', async () => {
    const clears = new StreakClears<string>();
    const { calls, writeOf } = heldWrites();
    const first = clears.clear('ep_1', 100, writeOf('ep_1'));
    const second = clears.clear('ep_1', 90, writeOf('ep_1'));
    // Not sent beside the first: after it.
    expect(calls.map((c) => c.at)).toEqual([100]);
    calls[0]!.answer('confirmed');
    await first;
    await byNextTurn(Promise.resolve());
    // Its own write follows, at its own time, though the first's was later.
    expect(calls.map((c) => c.at)).toEqual([100, 90]);
    calls[1]!.answer('confirmed');
    expect(await second).toBe('confirmed');
  });

  it('a write refused fails everyone who shared it; the next clear writes again', async () => {
    const clears = new StreakClears<string>();
    const { calls, writeOf } = heldWrites();
    const refused = new Error('SystemOverloadedError');
    const first = clears.clear('ep_1', 100, writeOf('ep_1'));
    const a = clears.clear('ep_1', 110, writeOf('ep_1'));
    const b = clears.clear('ep_1', 120, writeOf('ep_1'));
    calls[0]!.refuse(refused);
    await expect(first).rejects.toBe(refused);
    await byNextTurn(Promise.resolve());
    calls[1]!.refuse(refused);
    await expect(a).rejects.toBe(refused);
    await expect(b).rejects.toBe(refused);
    expect(clears.inFlight).toBe(0);
    const later = clears.clear('ep_1', 130, writeOf('ep_1'));
    expect(calls.map((c) => c.at)).toEqual([100, 120, 130]);
    calls[2]!.answer('confirmed');
    expect(await later).toBe('confirmed');
  });

  it('keeps endpoints apart: another endpoint’s clear is written at once', () => {
    const clears = new StreakClears<string>();
    const { calls, writeOf } = heldWrites();
    void clears.clear('ep_1', 100, writeOf('ep_1'));
    void clears.clear('ep_2', 100, writeOf('ep_2'));
    void clears.clear('ep_1', 105, writeOf('ep_1'));
    expect(calls.map((c) => c.key)).toEqual(['ep_1', 'ep_2']);
    expect(clears.inFlight).toBe(2);
  });

  it('a result that settles those waiting (a majority not confirming in time) answers them the same, with no write of theirs', async () => {
    const clears = new StreakClears<string>((result) => result === 'unconfirmed');
    const { calls, writeOf } = heldWrites();
    const first = clears.clear('ep_1', 100, writeOf('ep_1'));
    const waiting = [clears.clear('ep_1', 110, writeOf('ep_1')), clears.clear('ep_1', 120, writeOf('ep_1'))];
    calls[0]!.answer('unconfirmed');
    expect(await first).toBe('unconfirmed');
    expect(await Promise.all(waiting)).toEqual(['unconfirmed', 'unconfirmed']);
    expect(calls).toHaveLength(1);
    expect(clears.inFlight).toBe(0);
    // A confirmed one does not: those waiting write.
    const again = clears.clear('ep_1', 130, writeOf('ep_1'));
    const after = clears.clear('ep_1', 140, writeOf('ep_1'));
    calls[1]!.answer('confirmed');
    await again;
    await byNextTurn(Promise.resolve());
    expect(calls.map((c) => c.at)).toEqual([100, 130, 140]);
    calls[2]!.answer('confirmed');
    expect(await after).toBe('confirmed');
  });

  it('a write never answered (a connection dead without closing) is answered as stalled after its time, and the next clear writes again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const clears = new StreakClears<string>((result) => result === 'unconfirmed', { afterMs: 20_000, result: 'unconfirmed' });
      const { calls, writeOf } = heldWrites();
      const stuck = clears.clear('ep_1', 100, writeOf('ep_1'));
      const waiting = clears.clear('ep_1', 110, writeOf('ep_1'));
      await vi.advanceTimersByTimeAsync(19_999);
      expect(await byNextTurn(stuck)).toBe('waiting');
      await vi.advanceTimersByTimeAsync(1);
      expect(await stuck).toBe('unconfirmed');
      expect(await waiting).toBe('unconfirmed');
      expect(clears.inFlight).toBe(0);
      const later = clears.clear('ep_1', 120, writeOf('ep_1'));
      expect(calls.map((c) => c.at)).toEqual([100, 120]);
      calls[1]!.answer('confirmed');
      expect(await later).toBe('confirmed');
      // The stuck one's late answer changes nothing.
      calls[0]!.refuse(new Error('connection reset'));
      expect(clears.inFlight).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
