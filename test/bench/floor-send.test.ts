// The floors' send and record (bench/floor/floor-parts.ts sendAndRecord), on stand-in steps:
// the retry rule (a 5xx, a 429 or no answer tried again 1, 2, 4, 8 s later, then failed; any
// other answer final), a gone endpoint's delivery failed unsent, and at most `inFlight` POSTs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FloorAttempt, type FloorDelivery, type Sent, sendAndRecord } from '../../bench/floor/floor-parts.ts';

const T0 = Date.UTC(2026, 11, 1);

/** Stand-in steps: `answers` given to the POSTs in turn (the last one repeated); what was recorded. */
function steps(answers: (number | null)[], target: string | null = 'endpoint') {
  const posted: number[] = [];
  const recorded: Pick<FloorAttempt, 'at' | 'status' | 'outcome' | 'next'>[] = [];
  const failed: number[] = [];
  let call = 0;
  return {
    posted,
    recorded,
    failed,
    steps: {
      target: () => target,
      post: async (_to: string, _d: FloorDelivery, now: number): Promise<Sent> => {
        posted.push(now - T0);
        const status = answers[Math.min(call++, answers.length - 1)] ?? null;
        return { status, head: status === null ? null : 'ok' };
      },
      record: async (_d: FloorDelivery, { at, status, outcome, next }: FloorAttempt) => void recorded.push({ at: at - T0, status, outcome, next: next - T0 }),
      fail: async (_d: FloorDelivery, now: number) => void failed.push(now - T0),
    },
  };
}

const delivery = (): FloorDelivery => ({ id: 'd1', messageId: 'm1', body: '{}', attempts: 0 });

describe('the floors’ send and record', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('a 500 then a 200: recorded pending with its retry 1 s later, then delivered', async () => {
    const s = steps([500, 200]);
    sendAndRecord(4, s.steps)(delivery());
    await vi.advanceTimersByTimeAsync(999);
    expect(s.recorded).toEqual([{ at: 0, status: 500, outcome: 'pending', next: 1_000 }]);
    expect(s.posted).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.posted).toEqual([0, 1_000]);
    expect(s.recorded.at(-1)).toEqual({ at: 1_000, status: 200, outcome: 'delivered', next: 1_000 });
  });

  it('a 503 each time, a 429 and no answer alike: four tries again 1, 2, 4, 8 s apart, then failed', async () => {
    for (const answer of [503, 429, null]) {
      vi.setSystemTime(T0);
      const s = steps([answer]);
      sendAndRecord(4, s.steps)(delivery());
      await vi.advanceTimersByTimeAsync(60_000);
      expect(s.posted, String(answer)).toEqual([0, 1_000, 3_000, 7_000, 15_000]);
      expect(s.recorded.map((r) => r.outcome)).toEqual(['pending', 'pending', 'pending', 'pending', 'failed']);
      expect(s.recorded.at(-1)?.next).toBe(15_000);
    }
  });

  it('a 400 or a 301 is final at once; a gone endpoint’s delivery fails unsent', async () => {
    for (const answer of [400, 301]) {
      vi.setSystemTime(T0);
      const s = steps([answer]);
      sendAndRecord(4, s.steps)(delivery());
      await vi.advanceTimersByTimeAsync(60_000);
      expect(
        s.recorded.map((r) => r.outcome),
        String(answer),
      ).toEqual(['failed']);
    }
    vi.setSystemTime(T0);
    const gone = steps([200], null);
    sendAndRecord(4, gone.steps)(delivery());
    await vi.advanceTimersByTimeAsync(1);
    expect(gone.posted).toEqual([]);
    expect(gone.failed).toEqual([0]);
  });

  it('a POST that could not be made (its step threw or rejected) is no answer: recorded and tried again, the process unharmed', async () => {
    for (const fault of ['throws', 'rejects'] as const) {
      vi.setSystemTime(T0);
      const s = steps([200]);
      let calls = 0;
      const post = s.steps.post;
      sendAndRecord(4, {
        ...s.steps,
        post: (to, d, now) => {
          if (calls++ > 0) return post(to, d, now);
          if (fault === 'throws') throw new Error('cannot sign');
          return Promise.reject(new Error('the thread is gone'));
        },
      })(delivery());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(s.recorded, fault).toEqual([
        { at: 0, status: null, outcome: 'pending', next: 1_000 },
        { at: 1_000, status: 200, outcome: 'delivered', next: 1_000 },
      ]);
    }
  });

  it('at most inFlight POSTs at once; the next starts as one ends', async () => {
    const ends: (() => void)[] = [];
    let started = 0;
    const enqueue = sendAndRecord(2, {
      target: () => 'endpoint',
      post: () => {
        started++;
        return new Promise<Sent>((resolve) => ends.push(() => resolve({ status: 200, head: null })));
      },
      record: async () => {},
      fail: async () => {},
    });
    for (let i = 0; i < 3; i++) enqueue({ ...delivery(), id: `d${i}` });
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toBe(2);
    ends[0]!();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toBe(3);
  });
});
