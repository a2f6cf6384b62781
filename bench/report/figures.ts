// The report's figures: each scenario's in its own module (delivery-, stress-, idempotency-figures.ts),
// joined here in the report's order; the medians they are made from in medians.ts.
import { thousands } from '@wirehook/core/without-schemas';
import {
  abFigures,
  baselineFigures,
  clusterFigures,
  clusterFloorFigures,
  e2eFigures,
  fanoutFigures,
  floorFigures,
  intakeFigures,
  threadedFloorFigures,
} from './delivery-figures.ts';
import { capacityFigures } from './capacity-figures.ts';
import { type Figure, ratio } from './figure.ts';
import { historyFigures } from './history-figures.ts';
import { idempotencyFigures } from './idempotency-figures.ts';
import type { ScenarioMedians } from './medians.ts';
import { orderedFigures } from './ordered-figures.ts';
import { paceFigures } from './pace-figures.ts';
import { backlogFigures, noisyFigures, stormFigures } from './stress-figures.ts';
import { transformedFigures } from './transformed-figures.ts';

export type { Figure } from './figure.ts';
export { type Medians, mediansOf } from './medians.ts';

/** The report's figures, with ratios to the baseline and the targets. */
export function figuresOf(medians: ScenarioMedians): Figure[] {
  return withWarming(medians, [
    ...baselineFigures(medians),
    ...intakeFigures(medians),
    ...e2eFigures(medians),
    ...paceFigures(medians),
    ...floorFigures(medians),
    ...threadedFloorFigures(medians),
    ...clusterFloorFigures(medians),
    ...fanoutFigures(medians),
    ...stormFigures(medians),
    ...noisyFigures(medians),
    ...backlogFigures(medians),
    ...orderedFigures(medians),
    ...capacityFigures(medians),
    ...historyFigures(medians),
    ...transformedFigures(medians),
    ...clusterFigures(medians),
    ...idempotencyFigures(medians),
    ...abFigures(medians),
  ]);
}

/**
 * After each scenario's own figures, its warming run's CPU a delivery (records.ts `warming`):
 * no target; beside it, how much above the measured runs' median it is.
 */
function withWarming(medians: ScenarioMedians, figures: Figure[]): Figure[] {
  const out: Figure[] = [];
  const shown = new Set<string>();
  figures.forEach((figure, i) => {
    out.push(figure);
    const scenario = figure.scenario;
    const warming = medians[scenario]?.warming;
    if (warming === undefined || figures[i + 1]?.scenario === scenario || shown.has(scenario)) return;
    shown.add(scenario);
    const measured = ratio(warming.wirehookCpuUs, medians[scenario]?.wirehookCpuUs);
    out.push({
      id: `${scenario}.warmingCpu`,
      scenario,
      measure: `CPU per delivery while warming (${warmingSize(warming)} first)`,
      value: warming.wirehookCpuUs,
      unit: 'µs',
      ratioToBaseline: null,
      target: null,
      checked: measured === null ? null : `${measured} × the measured runs'`,
      pass: null,
    });
  });
  return out;
}

/** A warming's size in words: its messages, and their deliveries where a message makes more than one (fan-out). */
function warmingSize({ sent, delivered }: { sent: number; delivered: number }): string {
  const messages = `${thousands(sent)} ${sent === 1 ? 'message' : 'messages'}`;
  return delivered === sent ? messages : `${messages}, ${thousands(delivered)} deliveries`;
}
