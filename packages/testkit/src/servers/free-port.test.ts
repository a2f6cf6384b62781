// Draws that bind real ports stay in this process's own share (its lane's, under `./dev test`):
// a probe of the other lane's ports could take one its cluster test drew and has not bound yet.
import { createServer, Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { drawPorts, freePort, freePortRun, portShare, testLane } from './free-port.ts';

/** A fresh instance of the module: nothing handed out yet, so a chosen port is drawn if free. */
async function freshModule(): Promise<typeof import('./free-port.ts')> {
  vi.resetModules();
  return import('./free-port.ts');
}

/** Math.random's value that makes a draw of `count` ports in `[from, to)` start on `port`. */
const landOn = (port: number, [from, to]: [number, number], count = 1) => (port - from + 0.5) / (to - from - count + 1);

/** Listens on 127.0.0.1:`port`: a server, or undefined when the port is taken. */
function bind(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(undefined))
      .listen(port, '127.0.0.1', () => resolve(server));
  });
}
const unbind = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The first port of `share` from its middle on where `count` consecutive ports are free now. */
async function freeRunIn([from, to]: [number, number], count: number): Promise<number> {
  for (let base = Math.floor((from + to) / 2); base + count <= to; base++) {
    const servers = await Promise.all(Array.from({ length: count }, (_, i) => bind(base + i)));
    await Promise.all(servers.map((s) => s && unbind(s)));
    if (servers.every(Boolean)) return base;
  }
  throw new Error(`no ${count} free ports in ${from}–${to - 1}`);
}

afterEach(() => vi.restoreAllMocks());

describe('free ports', () => {
  it("draws again when it would take 10080, a port fetch refuses (the Fetch standard's bad ports)", async () => {
    const real = Math.random;
    // The first draw lands on 10,080 exactly; later draws are random. No port is bound: every one is "free".
    const share: [number, number] = [10_000, 11_000];
    const draws = [(80 + 0.5) / (share[1] - share[0])];
    const random = vi.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? real());
    const probed: number[] = [];
    const port = await drawPorts(1, share, async (p) => {
      probed.push(p);
      return true;
    });
    expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(port).not.toBe(10_080);
    expect(probed).not.toContain(10_080);
    // A run is drawn again when it would hold 10080 anywhere in it.
    draws.push((50 + 0.5) / (share[1] - share[0] - 40));
    const base = await drawPorts(41, share, async () => true);
    expect(base <= 10_080 && 10_080 < base + 41).toBe(false);
  });

  it('keeps every run inside its share, to its last port; refuses a run that cannot fit; gives up on a share with nothing free', async () => {
    for (let i = 0; i < 200; i++) {
      const base = await drawPorts(14, [20_000, 20_040], async () => true);
      expect(base >= 20_000 && base + 14 <= 20_040).toBe(true);
    }
    await expect(drawPorts(21, [20_000, 20_040], async () => true)).rejects.toThrow('a run of 21 ports does not fit the share 20000–20039');
    await expect(drawPorts(1, [20_000, 20_040], async () => false)).rejects.toThrow('no 1 free consecutive ports in 20000–20039 after 1000 draws');
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

  it('never hands out a port twice within a minute, even when the draw lands on it again (both would be free until bound)', async () => {
    const [singleFrom, singleTo] = portShare('single', testLane());
    const real = Math.random;
    const first = await freePort();
    // The next draw lands on the port just handed out, then on a run over it; later draws are random.
    const onFirst = (first - singleFrom + 0.5) / (singleTo - singleFrom);
    const draws = [onFirst];
    vi.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? real());
    const second = await freePort();
    expect(draws).toHaveLength(0);
    expect(second).not.toBe(first);
    const [runFrom, runTo] = portShare('run', testLane());
    const run = await freePortRun(3);
    draws.push((run + 1 - runFrom + 0.5) / (runTo - runFrom - 3 + 1)); // a run starting on the run's second port
    const again = await freePortRun(3);
    expect(draws).toHaveLength(0);
    expect(again < run - 2 || again > run + 2).toBe(true);
  });

  it('hands out distinct ports to draws running side by side, even when they all land on one port first', async () => {
    const real = Math.random;
    let same = 50;
    vi.spyOn(Math, 'random').mockImplementation(() => (same-- > 0 ? 0.5 : real()));
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    const runs = await Promise.all(Array.from({ length: 10 }, () => freePortRun(14)));
    const held = runs.flatMap((base) => Array.from({ length: 14 }, (_, i) => base + i));
    expect(new Set(held).size).toBe(140);
  });

  it('holds a port from its probe on: a draw begun after the port was probed and let go, before its draw returned, does not get it', async () => {
    const { freePort } = await freshModule();
    const share = portShare('single', testLane());
    const port = await freeRunIn(share, 1);
    const real = Math.random;
    // Both draws land on `port` first; later draws are random.
    const draws = [landOn(port, share), landOn(port, share)];
    vi.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? real());
    // The first draw's probe lets the port go (closed); right then, before that draw returns, a
    // second draw begins. Side by side in the same tick, the kernel alone keeps them apart (one
    // bind fails); here only the hold can.
    const close = Server.prototype.close;
    let second: Promise<number> | undefined;
    vi.spyOn(Server.prototype, 'close').mockImplementation(function (this: Server, callback?: (err?: Error) => void) {
      return close.call(this, (err?: Error) => {
        second ??= freePort();
        callback?.(err);
      });
    });
    const first = await freePort();
    expect(second).toBeDefined();
    expect(first).toBe(port);
    expect(await second).not.toBe(port);
    expect(draws).toHaveLength(0);
  });

  it('gives back the ports a draw probed when it finds none: a later draw landing on them gets them', async () => {
    const { freePortRun } = await freshModule();
    const share = portShare('run', testLane());
    const base = await freeRunIn(share, 2);
    // Every draw lands on `base`, whose second port is taken: the draw probes both, finds no run, and throws.
    vi.spyOn(Math, 'random').mockImplementation(() => landOn(base, share, 2));
    const taken = await bind(base + 1);
    expect(taken).toBeDefined();
    await expect(freePortRun(2)).rejects.toThrow(/no 2 free consecutive ports in .* after 1000 draws/);
    await unbind(taken!);
    // Both free now, and given back: the same landing hands them out (held still, it would draw on and fail again).
    expect(await freePortRun(2)).toBe(base);
  });

  it("draws single ports and runs in this process's own shares", async () => {
    const [singleFrom, singleTo] = portShare('single', testLane());
    const [runFrom, runTo] = portShare('run', testLane());
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port >= singleFrom && port < singleTo).toBe(true);
      const base = await freePortRun(14);
      expect(base >= runFrom && base + 14 <= runTo).toBe(true);
    }
  });
});
