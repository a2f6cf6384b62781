// The message list's walk over months without a server: each month a list of ids newest first,
// some matching the page's residual; the reads answer as the window and page plans would.
import { describe, expect, it } from 'vitest';
import { firstIdAt } from '@wirehook/core';
import { listPlan, type MonthReads, walkMonths } from './message-list.ts';
import { SINCE_ID_MARGIN_MS } from '../ports/message-port.ts';

/** `months`: each month's ids, newest first, a `*` marking a match (`'b9*'`). Records what was read. */
function monthsOf(months: Record<string, string[]>) {
  const log: string[] = [];
  const ids = (month: string) => (months[month] ?? []).map((id) => id.replace('*', ''));
  const reads: MonthReads<string> = {
    count: async (month, limit) => (log.push(`count ${month} ${limit}`), Math.min(ids(month).length, limit)),
    edge: async (month, skip) => (log.push(`edge ${month} ${skip}`), ids(month)[skip] ?? null),
    page: async (month, from, limit) => {
      log.push(`page ${month} from ${from ?? '-'}`);
      const matches = (months[month] ?? []).filter((id) => id.endsWith('*')).map((id) => id.replace('*', ''));
      return matches.filter((id) => from === null || id >= from).slice(0, limit);
    },
    pastMonth: (month) => `past ${month}`,
  };
  return { reads, log };
}

// Two months, newest first: 202612 holds 6 messages (2 match), 202611 holds 4 (2 match).
const MONTHS = { '202612': ['d6', 'd5*', 'd4', 'd3', 'd2*', 'd1'], '202611': ['c4*', 'c3', 'c2', 'c1*'] };

describe('the message list’s walk (MongoDB)', () => {
  it('without a residual reads each month’s page until the limit is filled, never counting', async () => {
    const { reads, log } = monthsOf(MONTHS);
    expect(await walkMonths(['202612', '202611'], 3, null, reads)).toEqual({ messages: ['d5', 'd2', 'c4'], resumeAfterId: null });
    expect(log).toEqual(['page 202612 from -', 'page 202611 from -']);
  });

  it('within its budget reads what it would without one, counting each month’s range first', async () => {
    const { reads, log } = monthsOf(MONTHS);
    expect(await walkMonths(['202612', '202611'], 10, 11, reads)).toEqual({ messages: ['d5', 'd2', 'c4', 'c1'], resumeAfterId: null });
    expect(log).toEqual(['count 202612 11', 'page 202612 from -', 'count 202611 5', 'page 202611 from -']);
  });

  it('past its budget reads down to the budget’s edge only, and ends there with the edge as its cursor', async () => {
    const { reads, log } = monthsOf(MONTHS);
    // 8 messages: the 6 of December and 2 of November (c4, c3).
    expect(await walkMonths(['202612', '202611'], 10, 8, reads)).toEqual({ messages: ['d5', 'd2', 'c4'], resumeAfterId: 'c3' });
    expect(log).toEqual(['count 202612 8', 'page 202612 from -', 'count 202611 2', 'edge 202611 1', 'page 202611 from c3']);
    // The next page goes on older than c3: c1 is found there.
    const next = monthsOf({ '202611': ['c2', 'c1*'] });
    expect(await walkMonths(['202611'], 10, 8, next.reads)).toEqual({ messages: ['c1'], resumeAfterId: null });
  });

  it('a budget spent exactly at a month’s end still ends the page at its oldest id (the next page reads the older months)', async () => {
    const { reads } = monthsOf(MONTHS);
    expect(await walkMonths(['202612', '202611'], 10, 6, reads)).toEqual({ messages: ['d5', 'd2'], resumeAfterId: 'd1' });
  });

  it('a page filled before the budget’s edge needs no cursor of the walk’s (the list’s own comes from its last row)', async () => {
    const { reads } = monthsOf(MONTHS);
    expect(await walkMonths(['202612', '202611'], 1, 3, reads)).toEqual({ messages: ['d5'], resumeAfterId: null });
  });

  it('a range that shrank between its count and its edge (a status range) is read uncut, and the page ends past its month', async () => {
    const { reads, log } = monthsOf(MONTHS);
    reads.edge = async () => null;
    // Not a null cursor, which would tell the list is over with older matches left.
    expect(await walkMonths(['202612', '202611'], 10, 6, reads)).toEqual({ messages: ['d5', 'd2'], resumeAfterId: 'past 202612' });
    // Never a count without a limit, nor the next month read past the spent budget.
    expect(log).toEqual(['count 202612 6', 'page 202612 from -']);
    // The oldest month walked has nothing past it: there the list is over.
    expect(await walkMonths(['202612'], 10, 6, reads)).toEqual({ messages: ['d5', 'd2'], resumeAfterId: null });
  });

  it('reads a cut page from the edge itself ($gte: the edge is on this page), never below since’s own bound', () => {
    const t = { orgId: 'org_1', env: 'live' } as never;
    const query = { status: 'failed' as const, eventType: 'a.b', afterId: 'msg_9', since: 1_000_000 };
    const sinceBound = firstIdAt('message', query.since - SINCE_ID_MARGIN_MS);
    const edge = `msg_${'Z'.repeat(10)}`;
    expect(listPlan(t, { ...query, fromId: edge }).page.filter['_id']).toEqual({ $gte: edge, $lt: 'msg_9' });
    // An edge older than since's bound (it cannot be: the window starts there) would not widen it.
    expect(listPlan(t, { ...query, fromId: 'msg_0' }).page.filter['_id']).toEqual({ $gte: sinceBound, $lt: 'msg_9' });
    // The window counts the same range without the residuals.
    expect(listPlan(t, query).window.filter).toEqual({ orgId: 'org_1', env: 'live', status: 'failed', _id: { $gte: sinceBound, $lt: 'msg_9' } });
    expect(listPlan(t, query).residual).toBe(true);
    expect(listPlan(t, { status: 'failed' }).residual).toBe(false);
  });
});
