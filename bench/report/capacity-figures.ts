import { adder, atLeast, atMost, type Figure } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';

/**
 * Throughput control per endpoint (issue 32): goodput to a receiver of capacity 4 × 100 ms
 * (40/s) after the first 10 s, as a share of it (target ≥ 90 %) and the share answered 429
 * (target < 5 %); a 10/s endpoint's most receipts in any second (target ≤ 12) and how long an
 * unlimited endpoint beside it took for the same count.
 */
export function capacityFigures({ capacity: c }: ScenarioMedians): Figure[] {
  if (!c) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  const goodputPct = c.extra['goodputPct'] ?? null;
  add({
    id: 'capacity.goodput',
    scenario: 'capacity',
    measure: 'goodput to a 4 × 100 ms receiver, after 10 s',
    value: c.perSecond,
    unit: '/s',
    ratioToBaseline: null,
    target: '≥ 90% of 40/s',
    checked: goodputPct === null ? null : `${goodputPct}%`,
    pass: atLeast(goodputPct, 90),
  });
  const refusedPct = c.extra['refusedPct'] ?? null;
  add({
    id: 'capacity.refusedShare',
    scenario: 'capacity',
    measure: 'requests answered 429 after 10 s, %',
    value: refusedPct,
    unit: '',
    ratioToBaseline: null,
    target: '< 5%',
    checked: refusedPct === null ? null : `${refusedPct}%`,
    pass: refusedPct === null ? null : refusedPct < 5,
  });
  const most = c.extra['limitedMaxPerSecond'] ?? null;
  add({
    id: 'capacity.limitedMaxPerSecond',
    scenario: 'capacity',
    measure: 'rate_limit 10: most received in any 1 s',
    value: most,
    unit: '',
    ratioToBaseline: null,
    target: '≤ 12',
    checked: most === null ? null : String(most),
    pass: atMost(most, 12),
  });
  add({
    id: 'capacity.unlimitedSeconds',
    scenario: 'capacity',
    measure: 'the unlimited endpoint beside it: all delivered, s',
    value: c.extra['unlimitedSeconds'] ?? null,
    unit: '',
    ratioToBaseline: null,
  });
  return figures;
}
