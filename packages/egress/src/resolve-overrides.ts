import { isIP } from 'node:net';
import type { LookupFn } from './resolve-host.ts';

/**
 * Parses DELIVERY_RESOLVE — `host:address` pairs, comma-separated, like curl's --resolve —
 * into a map. Development and tests only: it lets a name point at a loopback receiver.
 * @throws Error naming a malformed entry.
 */
export function parseResolveOverrides(value: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const at = entry.indexOf(':');
    const host = entry.slice(0, at).toLowerCase();
    const address = entry.slice(at + 1).replace(/^\[|\]$/g, '');
    if (at <= 0 || isIP(address) === 0) {
      throw new Error(`DELIVERY_RESOLVE: entry "${entry}" is not host:address`);
    }
    map.set(host, address);
  }
  return map;
}

/** A lookup answering the overridden names from the map and everything else with `fallback`. */
export function lookupWithOverrides(overrides: Map<string, string>, fallback: LookupFn): LookupFn {
  if (overrides.size === 0) return fallback;
  return async (host) => {
    const address = overrides.get(host.toLowerCase().replace(/\.$/, ''));
    return address ? [{ address, family: isIP(address) }] : fallback(host);
  };
}
