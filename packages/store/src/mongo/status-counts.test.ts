import { DELIVERY_STATUSES, messageStatus, type DeliveryStatus } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { pendingCounts, STATUS_OF_COUNTS, statusOfCounts } from './message-status.ts';
import { counterKey, SHARDS, shardIds } from './usage-counters.ts';

// Pure parts of the MongoDB adapter that run without a server: the status a message's counts
// give (the same precedence builds the update's $switch) and the names of a counter's shards.

describe('a message status from its counts', () => {
  it('is core messageStatus of the deliveries those counts describe, for every mix of statuses', () => {
    for (let mask = 0; mask < 1 << DELIVERY_STATUSES.length; mask++) {
      const counts = pendingCounts(0);
      const deliveries: { status: DeliveryStatus }[] = [];
      DELIVERY_STATUSES.forEach((status, i) => {
        if ((mask & (1 << i)) === 0) return;
        counts[status] = i + 1;
        for (let n = 0; n <= i; n++) deliveries.push({ status });
      });
      expect(statusOfCounts(counts), JSON.stringify(counts)).toBe(messageStatus(deliveries));
    }
  });

  it('the update MongoDB runs asks the same questions in the same order', () => {
    // The $switch the completion's update evaluates, read back: each branch a count above 0.
    const { branches, default: fallback } = STATUS_OF_COUNTS.$switch as { branches: { case: { $gt: [string, number] }; then: string }[]; default: string };
    const evaluate = (counts: Record<string, number>) =>
      branches.find((b) => (counts[b.case.$gt[0].replace('$counts.', '')] ?? 0) > b.case.$gt[1])?.then ?? fallback;
    for (let mask = 0; mask < 1 << DELIVERY_STATUSES.length; mask++) {
      const counts = pendingCounts(0);
      DELIVERY_STATUSES.forEach((status, i) => {
        if ((mask & (1 << i)) !== 0) counts[status] = 1;
      });
      expect(evaluate(counts), JSON.stringify(counts)).toBe(statusOfCounts(counts));
    }
  });

  it('starts a new message with every delivery pending', () => {
    expect(pendingCounts(3)).toEqual({ pending: 3, retrying: 0, success: 0, failed: 0 });
    expect(statusOfCounts(pendingCounts(3))).toBe('pending');
    expect(statusOfCounts(pendingCounts(0))).toBe('success');
  });
});

describe('a usage counter spread over shards', () => {
  it('keeps the bare key as its first shard, so a counter written before shards is read', () => {
    const ids = shardIds('live:org_1:2026-11');
    expect(ids).toHaveLength(SHARDS);
    expect(ids[0]).toBe('live:org_1:2026-11');
    expect(new Set(ids).size).toBe(SHARDS);
    for (const id of ids) expect(counterKey(id)).toBe('live:org_1:2026-11');
  });

  it("never names another counter's shard, whatever text a key ends in", () => {
    const keys = ['test:org_1:2026-11-25:acme', 'test:org_1:2026-11-25:acme#1', 'test:org_1:2026-11-25:1|acme', 'test:org_1:2026-11-25:acme|1'];
    const all = keys.flatMap(shardIds);
    expect(new Set(all).size).toBe(all.length);
    for (const key of keys) for (const id of shardIds(key)) expect(counterKey(id)).toBe(key);
  });
});
