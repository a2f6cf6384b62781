import { expect, it } from 'vitest';
import { foldChanges } from './egress-change-fold.ts';

it('a newer change keeps what the ones it supersedes said, unless it undoes it', () => {
  const x = { added: ['A'], retiring: ['Z'], retiringAt: 100 };
  // C retires: A stays added, Z and C retire (the later time).
  expect(foldChanges([x], { added: [], retiring: ['C'], retiringAt: 200 })).toEqual({ added: ['A'], retiring: ['Z', 'C'], retiringAt: 200 });
  // A taken out again, Z put back: neither is news any more but that.
  expect(foldChanges([x], { added: ['Z'], retiring: ['A'], retiringAt: 300 })).toEqual({ added: ['Z'], retiring: ['A'], retiringAt: 300 });
  // Nothing retiring after the fold: no time.
  expect(foldChanges([{ added: [], retiring: ['A'], retiringAt: 100 }], { added: ['A'], retiring: [], retiringAt: null })).toEqual({
    added: ['A'],
    retiring: [],
    retiringAt: null,
  });
  expect(foldChanges([], { added: ['B'], retiring: [], retiringAt: null })).toEqual({ added: ['B'], retiring: [], retiringAt: null });
});
