import { adder, type Figure } from './figure.ts';
import type { ScenarioMedians } from './medians.ts';

/**
 * Issue 40 H2: org B's send latency, one caller, with nobody reading and beside six readers of
 * org A's 100-attempt delivery; each with its ratio to the same run's no-reader figure
 * (medians over runs). The bound: B's p99 under 100 ms beside the readers.
 */
export function historyFigures({ history: h }: ScenarioMedians): Figure[] {
  if (!h) return [];
  const figures: Figure[] = [];
  const add = adder(figures);
  const x = (v: number | null | undefined) => (v == null ? null : `${v} × no readers`);
  add({
    id: 'history.quietP50',
    scenario: 'history',
    measure: "org B's send p50, no readers",
    value: h.extra['quietP50'] ?? null,
    unit: 'ms',
    ratioToBaseline: null,
  });
  add({
    id: 'history.quietP99',
    scenario: 'history',
    measure: "org B's send p99, no readers",
    value: h.extra['quietP99'] ?? null,
    unit: 'ms',
    ratioToBaseline: null,
  });
  add({
    id: 'history.sendP50',
    scenario: 'history',
    measure: "org B's send p50, 6 readers of a 100-attempt history",
    value: h.extra['sendP50'] ?? null,
    unit: 'ms',
    ratioToBaseline: null,
    checked: x(h.extra['p50VsQuiet']),
  });
  const p99 = h.extra['sendP99'] ?? null;
  add({
    id: 'history.sendP99',
    scenario: 'history',
    measure: "org B's send p99, 6 readers of a 100-attempt history",
    value: p99,
    unit: 'ms',
    ratioToBaseline: null,
    target: '< 100 ms (issue 40)',
    checked: p99 === null ? null : `${p99} ms (${x(h.extra['p99VsQuiet']) ?? '—'})`,
    pass: p99 === null ? null : p99 < 100,
  });
  add({
    id: 'history.readsPerSecond',
    scenario: 'history',
    measure: 'reads of the history answered',
    value: h.extra['readsPerSecond'] ?? null,
    unit: '/s',
    ratioToBaseline: null,
  });
  add({ id: 'history.readP99', scenario: 'history', measure: 'read p99', value: h.extra['readP99'] ?? null, unit: 'ms', ratioToBaseline: null });
  return figures;
}
