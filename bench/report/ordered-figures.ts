import { adder, atLeast, type Figure, pct, ratio } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';
import { round } from './stats.ts';

/**
 * Ordered delivery per key (issue 31): the ordered drain's rate against the unordered one to
 * the same receiver (target ≥ 80 %), and the other keys' p99 with one key blocked against the
 * same load with none (target: within 25 %, the noise of a shared machine).
 */
export function orderedFigures({ ordered: o }: ScenarioMedians): Figure[] {
  if (!o) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  // From the medians, not the median of each run's share: the figure shows the two rates it compares.
  const share = ratio(o.perSecond, o.extra['unorderedPerSecond']);
  add({
    id: 'ordered.unorderedRate',
    scenario: 'ordered',
    measure: 'deliveries/s, unordered',
    value: o.extra['unorderedPerSecond'] ?? null,
    unit: '/s',
    ratioToBaseline: null,
  });
  add({
    id: 'ordered.rate',
    scenario: 'ordered',
    measure: 'deliveries/s, ordered by key',
    value: o.perSecond,
    unit: '/s',
    ratioToBaseline: null,
    target: '≥ 80% of unordered',
    checked: pct(share),
    pass: atLeast(share, 0.8),
  });
  const [clean, blocked] = [o.extra['cleanP99'] ?? null, o.extra['blockedP99'] ?? null];
  add({ id: 'ordered.cleanP99', scenario: 'ordered', measure: 'paced p99, no key blocked', value: clean, unit: 'ms', ratioToBaseline: null });
  const change = clean === null || blocked === null || clean === 0 ? null : round(blocked / clean, 2);
  add({
    id: 'ordered.blockedP99',
    scenario: 'ordered',
    measure: "paced p99 of the other keys, one key's head failing",
    value: blocked,
    unit: 'ms',
    ratioToBaseline: null,
    target: '≤ 1.25 × no key blocked',
    checked: change === null ? null : `${change} ×`,
    pass: change === null ? null : change <= 1.25,
  });
  return figures;
}
