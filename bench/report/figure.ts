import type { ScenarioName } from './records.ts';
import { round } from './stats.ts';

/** One line of the report. */
export interface Figure {
  /** Stable key, e.g. `e2e.p99`. */
  id: string;
  scenario: ScenarioName;
  measure: string;
  value: number | null;
  unit: '/s' | 'ms' | 'MB' | 'µs' | '';
  /** The value over the same run's baseline figure of the same kind (rate or latency percentile); null when there is none. */
  ratioToBaseline: number | null;
  /** The target, in words; null when the figure has none. */
  target: string | null;
  /** The number checked against the target, as shown (e.g. `0.23 × baseline`). */
  checked: string | null;
  /** null: no target, or not measured. */
  pass: boolean | null;
}

/** A figure as the scenarios state it: target, checked and pass default to null. */
export type FigureInput = Omit<Figure, 'target' | 'checked' | 'pass'> & Partial<Pick<Figure, 'target' | 'checked' | 'pass'>>;

/** A function that appends a figure to `figures`, filling what it leaves out with null. */
export const adder =
  (figures: Figure[]) =>
  (fig: FigureInput): number =>
    figures.push({ target: null, checked: null, pass: null, ...fig });

/**
 * a / b to two decimals, or two significant digits below 0.1 (a smoke run's few deliveries a second
 * against the baseline's thousands read 0.00, as if nothing was delivered); null when either is
 * missing or b is 0.
 */
export const ratio = (a: number | null | undefined, b: number | null | undefined) => {
  if (a == null || b == null || b === 0) return null;
  const r = a / b;
  return Math.abs(r) >= 0.1 ? round(r, 2) : Number(r.toPrecision(2));
};
/** Whether v is at most limit; null when not measured. */
export const atMost = (v: number | null, limit: number) => (v === null ? null : v <= limit);
/** Whether v is at least limit; null when not measured. */
export const atLeast = (v: number | null, limit: number) => (v === null ? null : v >= limit);
/** A ratio as a whole percentage; null when not measured. */
export const pct = (v: number | null) => (v === null ? null : `${Math.round(v * 100)}%`);
