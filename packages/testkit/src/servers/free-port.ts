import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * `./dev test` runs the suite as two vitest processes side by side (scripts/test-lanes.ts) and
 * tells each its lane, 1 or 2, in this variable; unset, a process has the ports alone.
 */
export const TEST_LANE_ENV = 'WIREHOOK_TEST_LANE';

/** The lane this process runs in (TEST_LANE_ENV): 1 or 2, or 0 alone. */
export function testLane(): 0 | 1 | 2 {
  const lane = process.env[TEST_LANE_ENV];
  return lane === '1' ? 1 : lane === '2' ? 2 : 0;
}

/**
 * A loopback port nothing listens on right now (another process may still take it before you
 * bind). Drawn below the kernel's ephemeral range, as runs are, but from a share of its own: a
 * port the kernel hands out for port 0 may become the source port of any process's outgoing
 * connection before the server binds it (EADDRINUSE), and a single port drawn among the runs
 * could land in a run drawn (and not yet bound) by a cluster test.
 */
export function freePort(): Promise<number> {
  return handOut(1, portShare('single'));
}

/**
 * `count` consecutive free loopback ports (e.g. the metrics port of every service); @returns
 * the first. Drawn below the kernel's ephemeral range: a port in it may become the source port
 * of some process's outgoing connection before our server binds it (EADDRINUSE).
 */
export function freePortRun(count: number): Promise<number> {
  return handOut(count, portShare('run'));
}

/**
 * How long a port this process handed out is not handed out again. A drawn port is free until
 * its test binds it, so two draws in a row (a service's GRPC_PORT, then its METRICS_PORT) could
 * otherwise get the same one, and the service then fails its start with EADDRINUSE.
 */
export const HANDED_OUT_MS = 60_000;
const handedOut = new Map<number, number>(); // port → when it was handed out

async function handOut(count: number, share: [number, number]): Promise<number> {
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at >= HANDED_OUT_MS) handedOut.delete(port);
  // Held from the probe on, so that draws running side by side never probe one port both; the
  // probed ports of a draw not taken are given back.
  const probed: number[] = [];
  let base: number | undefined;
  try {
    base = await drawPorts(count, share, async (port) => {
      if (handedOut.has(port)) return false;
      handedOut.set(port, now);
      probed.push(port);
      return portIsFree(port);
    });
    return base;
  } finally {
    // A draw that found none (it throws) gives back every port it probed.
    for (const port of probed) if (base === undefined || port < base || port >= base + count) handedOut.delete(port);
  }
}

/**
 * Where this process draws ports: [10,000, the ephemeral range's start), a half for each lane
 * (the whole alone), and in it the first quarter for single ports, the rest for runs. Ports a
 * lane has drawn and not yet bound are then never drawn by the other lane, nor a run's by a
 * single draw. (Where the ephemeral range starts below 18,000, the shares reach into it, up to
 * 18,000: there a draw may still meet an outgoing connection's port, as before.) @returns [from, to).
 */
export function portShare(kind: 'single' | 'run', lane: 0 | 1 | 2 = testLane()): [number, number] {
  const [low] = ephemeralRange();
  const [from, to] = [10_000, Math.max(low, 18_000)];
  const half = Math.floor((to - from) / 2);
  const [laneFrom, laneTo] = lane === 0 ? [from, to] : lane === 1 ? [from, from + half] : [from + half, to];
  const split = laneFrom + Math.floor((laneTo - laneFrom) / 4);
  return kind === 'single' ? [laneFrom, split] : [split, laneTo];
}

/** Draws a share holds before giving up: a share this full is a leak to find, not to wait out. */
const MAX_DRAWS = 1_000;

/**
 * `count` consecutive ports of [from, to) that `isFree` finds free, none a bad port of fetch's;
 * @returns the first. @throws when a run cannot fit, or after MAX_DRAWS draws found none.
 */
export async function drawPorts(count: number, [from, to]: [number, number], isFree: (port: number) => Promise<boolean> = portIsFree): Promise<number> {
  if (count < 1 || count > (to - from) / 2) throw new Error(`a run of ${count} ports does not fit the share ${from}–${to - 1}`);
  for (let drawn = 0; drawn < MAX_DRAWS; drawn++) {
    const base = from + Math.floor(Math.random() * (to - from - count + 1));
    if (FETCH_BAD_PORTS.some((bad) => bad >= base && bad < base + count)) continue;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => isFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} free consecutive ports in ${from}–${to - 1} after ${MAX_DRAWS} draws`);
}

/**
 * The Fetch standard's "bad ports" at or above 10,000, where runs are drawn: fetch refuses them
 * ("fetch failed"), and tests talk to these ports with fetch.
 */
const FETCH_BAD_PORTS = [10_080];

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The kernel's ephemeral (outgoing source) port range, read once a process; Linux's default when it cannot be read. */
let ephemeral: [number, number] | undefined;
function ephemeralRange(): [number, number] {
  ephemeral ??= readEphemeralRange();
  return ephemeral;
}

function readEphemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux
  }
  return [32_768, 60_999];
}
