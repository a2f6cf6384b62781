import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort, freePortRun, portShare, TEST_LANE_ENV } from './free-port.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('free ports', () => {
  it("draws again when it would take 10080, a port fetch refuses (the Fetch standard's bad ports)", async () => {
    vi.stubEnv(TEST_LANE_ENV, '');
    const [from, to] = portShare('single', 0);
    expect(from <= 10_080 && 10_080 < to).toBe(true);
    const real = Math.random;
    // The first draw lands on 10,080 exactly; later draws are random.
    const draws = [(10_080 - from + 0.5) / (to - from - 1)];
    const random = vi.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? real());
    const port = await freePort();
    expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(port).not.toBe(10_080);
  });

  it("shares the range below the kernel's ephemeral one: a half a lane, single ports apart from runs", () => {
    const shares = [1, 2].flatMap((lane) => (['single', 'run'] as const).map((kind) => portShare(kind, lane as 1 | 2)));
    // Back to back, in order, from 10,000: disjoint, and nothing left out.
    expect(shares[0]![0]).toBe(10_000);
    for (let i = 1; i < shares.length; i++) expect(shares[i]![0]).toBe(shares[i - 1]![1]);
    expect(shares.at(-1)![1]).toBe(portShare('run', 0)[1]);
    // Alone, a process has the whole range.
    expect(portShare('single', 0)[0]).toBe(10_000);
    expect(portShare('single', 0)[1]).toBe(portShare('run', 0)[0]);
  });

  it('each lane draws in its own share (WIREHOOK_TEST_LANE), singles and runs apart', async () => {
    for (const lane of ['1', '2'] as const) {
      vi.stubEnv(TEST_LANE_ENV, lane);
      const [singleFrom, singleTo] = portShare('single', Number(lane) as 1 | 2);
      const [runFrom, runTo] = portShare('run', Number(lane) as 1 | 2);
      for (let i = 0; i < 20; i++) {
        const port = await freePort();
        expect(port >= singleFrom && port < singleTo).toBe(true);
        const base = await freePortRun(14);
        expect(base >= runFrom && base + 14 <= runTo).toBe(true);
      }
    }
  });
});
