import { type Figure, ratio } from './figure.ts';
import type { Medians, ScenarioMedians } from './medians.ts';

/** The idempotency scenario's figures (see idempotencyRows); none when it did not run. */
export function idempotencyFigures({ baseline: b, idempotency: d }: ScenarioMedians): Figure[] {
  return d ? idempotencyRows(d, b) : [];
}

/**
 * The idempotency scenario: each measure with the gateway's Redis front off, then on, the
 * second with the after/before ratio. No targets: the issue asks for the figures.
 */
function idempotencyRows(d: Medians, b: Medians | undefined): Figure[] {
  const rows: [key: string, measure: string, unit: Figure['unit'], baseline: number | null | undefined][] = [
    ['ReplaysPerSecond', 'replays/s', '/s', b?.perSecond],
    ['ReplayP50', 'replay latency p50', 'ms', b?.latencyP50],
    ['ReplayP99', 'replay latency p99', 'ms', b?.latencyP99],
    ['CpuUsPerReplay', 'Wirehook CPU per replay', 'µs', undefined],
    ['BurstP50', '50-way duplicate burst, all answered, p50', 'ms', undefined],
    ['BurstP99', '50-way duplicate burst, all answered, p99', 'ms', undefined],
    ['IntakeCallsPerBurst', 'sends of a burst reaching message-intake', '', undefined],
  ];
  return rows.flatMap(([key, measure, unit, base]) => {
    const [off, on] = [d.extra[`off${key}`] ?? null, d.extra[`on${key}`] ?? null];
    const vsOff = ratio(on, off);
    const row = (front: 'off' | 'on', value: number | null): Figure => ({
      id: `idempotency.${front}${key}`,
      scenario: 'idempotency',
      measure: `${measure}, front ${front}`,
      value,
      unit,
      ratioToBaseline: ratio(value, base),
      target: null,
      checked: front === 'on' && vsOff !== null ? `${vsOff} × off` : null,
      pass: null,
    });
    return [row('off', off), row('on', on)];
  });
}
