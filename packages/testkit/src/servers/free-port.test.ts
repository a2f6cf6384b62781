import { readFileSync } from 'node:fs';
import { afterEach, expect, it, vi } from 'vitest';
import { freePort, freePortRun } from './free-port.ts';

afterEach(() => vi.restoreAllMocks());

it("draws a run of free ports again when it would hold 10080, a port fetch refuses (the Fetch standard's bad ports)", async () => {
  const real = Math.random;
  // The first draw puts the run at 10,000: 81 ports reach 10,080. Later draws are random.
  const draws = [0];
  const random = vi.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? real());
  const base = await freePortRun(81);
  expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
  expect(base).not.toBe(10_000);
  expect(base <= 10_080 && 10_080 < base + 81).toBe(false); // the run it took does not hold 10080
});

it("draws a single port below the kernel's ephemeral range, where no outgoing connection takes it meanwhile", async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(low);
  }
});
