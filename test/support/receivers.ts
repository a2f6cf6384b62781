// Real HTTPS receivers for delivery tests. Endpoint URLs must use port 443 or 8443, so
// each receiver listens on 8443 of its own loopback address 127.0.0.N (N = 2 … 254),
// reached as https://rN.receiver.wirehook.test:8443 — a name in the test certificate
// (*.receiver.wirehook.test) that `testLookup` maps to 127.0.0.N. Harnesses allow
// 127.0.0.0/8 through DELIVERY_ALLOW_HOSTS.
import { vi } from 'vitest';
import { lookupWithOverrides, parseResolveOverrides, systemLookup, type LookupFn } from '@wirehook/egress';
import { testCa, TestReceiver, testLane, untrustedCertificate, type RecordedRequest } from '@wirehook/testkit';

/**
 * Harness options that let deliveries reach the receivers: allowed, resolved and trusted. The
 * names go as DELIVERY_RESOLVE (data), not as a lookup function: a function cannot cross to
 * the egress thread, and with one the harness would send on the test's own thread instead.
 */
export async function reachingReceivers(): Promise<{ allowHosts: string; resolve: string; ca: string }> {
  return { allowHosts: TEST_ALLOW_HOSTS, resolve: TEST_RESOLVE, ca: (await testCa()).caPem };
}

/** A receiver on `https://<name>:8443`. */
export interface NamedReceiver {
  receiver: TestReceiver;
  ip: string;
  /** Host name to use in endpoint URLs (in the certificate, mapped by the lookup). */
  host: string;
  url(path?: string): string;
}

/** DELIVERY_ALLOW_HOSTS for harnesses that deliver to test receivers. */
export const TEST_ALLOW_HOSTS = 'localhost,127.0.0.0/8';
/** The receivers' names as DELIVERY_RESOLVE: rN.receiver.wirehook.test is 127.0.0.N, N = 2 … 254 (freshIp's). */
export const TEST_RESOLVE = Array.from({ length: 253 }, (_, i) => `r${i + 2}.receiver.wirehook.test:127.0.0.${i + 2}`).join(',');
const usedIps = new Set<string>();

/**
 * A loopback address 127.0.0.N (N = 2 … 254) this process has not used, for anything a test
 * binds on port 8443 or names as refusing. With `./dev test`'s two lanes side by side, lane 1
 * takes the odd ones and lane 2 the even ones: refusingUrl's address must stay unbound, and the
 * other lane's receiver there would answer it (with a TLS error, not a refusal).
 */
export function freshLoopbackIp(lane: 0 | 1 | 2 = testLane()): string {
  const mine = Array.from({ length: 253 }, (_, i) => i + 2).filter((n) => lane === 0 || n % 2 === lane % 2);
  const left = mine.filter((n) => !usedIps.has(`127.0.0.${n}`));
  if (left.length === 0) throw new Error(`every loopback address of this process's share (${mine.length}) is used`);
  const ip = `127.0.0.${left[Math.floor(Math.random() * left.length)]}`;
  usedIps.add(ip);
  return ip;
}

/** Starts a receiver on a free loopback address, port 8443. */
export async function startReceiver(options: { untrusted?: boolean; clientCa?: string } = {}): Promise<NamedReceiver> {
  const certificate = options.untrusted ? await untrustedCertificate() : undefined;
  for (let tries = 0; ; tries++) {
    const ip = freshLoopbackIp();
    try {
      const receiver = await TestReceiver.start({ host: ip, port: 8443, certificate, clientCa: options.clientCa });
      const host = hostFor(ip);
      return { receiver, ip, host, url: (path = '/hook') => `https://${host}:8443${path}` };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries > 20) throw err;
    }
  }
}

/** The test host name of a loopback address. */
export function hostFor(ip: string): string {
  return `r${ip.split('.')[3]}.receiver.wirehook.test`;
}

/** An endpoint URL where nothing listens (connections are refused). */
export function refusingUrl(): string {
  return `https://${hostFor(freshLoopbackIp())}:8443/hook`;
}

/** TEST_RESOLVE as a lookup function (for an HttpEgress of a test's own); anything else is resolved for real. */
export const testLookup: LookupFn = lookupWithOverrides(parseResolveOverrides(TEST_RESOLVE), systemLookup);

/**
 * Verifies a recorded webhook with the official standardwebhooks library as a receiver whose
 * clock reads `nowMs` would (the library refuses timestamps more than 5 minutes off its
 * clock, and tests move Wirehook's clock by hours). Returns the parsed body.
 */
export function verifyAt(receiver: TestReceiver, secret: string, request: RecordedRequest, nowMs: number): unknown {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(nowMs);
  try {
    return receiver.verify(secret, request);
  } finally {
    spy.mockRestore();
  }
}
