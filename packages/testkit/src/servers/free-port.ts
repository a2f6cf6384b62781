import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now (another process may still take it before you
 * bind). Drawn as freePortRun draws, below the ephemeral range: a port the kernel hands out for
 * port 0 may become the source port of any process's outgoing connection before the server
 * binds it (EADDRINUSE), which the suite's two lanes side by side made likely enough to see.
 */
export function freePort(): Promise<number> {
  return freePortRun(1);
}

/**
 * `count` consecutive free loopback ports (e.g. the metrics port of every service); @returns
 * the first. Drawn below the kernel's ephemeral range: a port in it may become the source port
 * of some process's outgoing connection before our server binds it (EADDRINUSE).
 */
export async function freePortRun(count: number): Promise<number> {
  const [low] = ephemeralRange();
  const ceiling = Math.max(12_000 + count, low - count);
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * (ceiling - 10_000 - count));
    if (FETCH_BAD_PORTS.some((bad) => bad >= base && bad < base + count)) continue;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
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

/** The kernel's ephemeral (outgoing source) port range; Linux's default when it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux
  }
  return [32_768, 60_999];
}
