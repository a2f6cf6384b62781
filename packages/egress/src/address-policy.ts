import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isPublicAddress, parseAddress, type ParsedAddress } from './address-class.ts';

/** Options for {@link AddressPolicy}. */
export interface AddressPolicyOptions {
  /**
   * The `DELIVERY_ALLOW_HOSTS` value: comma-separated host names, IP addresses or CIDR
   * ranges (IPv4 or IPv6) exempt from the private-address rules. Empty or absent: none.
   */
  allowHosts?: string | undefined;
}

type Cidr = [ParsedAddress, number];

// RFC 1123 labels, plus `_` which some internal DNS names use. Length checked separately.
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * Which addresses and host names webhooks may be sent to: public unicast addresses, plus
 * whatever the operator lists in `DELIVERY_ALLOW_HOSTS` (development and tests only).
 * Throws from the constructor when an allow-list entry cannot be parsed.
 */
export class AddressPolicy {
  readonly #names: ReadonlySet<string>;
  readonly #ranges: readonly Cidr[];

  constructor(options: AddressPolicyOptions = {}) {
    const { names, ranges } = parseAllowHosts(options.allowHosts ?? '');
    this.#names = names;
    this.#ranges = ranges;
  }

  /** True when `ip` is public unicast, or inside an allowed IP/CIDR. Unparsable: false. */
  isAllowedAddress(ip: string): boolean {
    return this.isListedAddress(ip) || isPublicAddress(ip);
  }

  /**
   * True when `ip` is inside an allowed IP/CIDR. An IPv4-mapped IPv6 address also
   * matches IPv4 entries, since it reaches the same host.
   */
  isListedAddress(ip: string): boolean {
    const parsed = parseAddress(ip);
    if (parsed === null) return false;
    const candidates: ParsedAddress[] = [parsed];
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      candidates.push((parsed as ipaddr.IPv6).toIPv4Address());
    }
    return candidates.some((addr) => this.#ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits)));
  }

  /** True when `host` is listed by name (case-insensitive, a trailing dot ignored). */
  isAllowedHostName(host: string): boolean {
    return this.#names.has(normalizeHostName(host));
  }
}

/** Lower-cases a host name and drops one trailing dot (`Example.COM.` → `example.com`). */
export function normalizeHostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * Parses a `DELIVERY_ALLOW_HOSTS` value into host names and CIDR ranges (single IPs
 * become /32 or /128). Throws an Error naming the first entry that is none of these.
 */
export function parseAllowHosts(value: string): { names: Set<string>; ranges: Cidr[] } {
  const names = new Set<string>();
  const ranges: Cidr[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.includes('/')) {
      ranges.push(parseCidrEntry(entry));
      continue;
    }
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
    const ip = parseAddress(bare);
    if (ip !== null) {
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    names.add(parseHostNameEntry(entry));
  }
  return { names, ranges };
}

function parseCidrEntry(entry: string): Cidr {
  const parts = entry.split('/');
  const [addr = '', prefix = ''] = parts;
  const family = isIP(addr);
  if (parts.length !== 2 || family === 0) {
    throw allowHostsError(entry, 'is not a CIDR range (expected e.g. 10.0.0.0/8 or fd00::/8)');
  }
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) {
    throw allowHostsError(entry, `has a prefix length outside 0-${max}`);
  }
  return [ipaddr.parse(addr), Number(prefix)];
}

function parseHostNameEntry(entry: string): string {
  const name = normalizeHostName(entry);
  const labels = name.split('.');
  // A name whose last label is numeric would be read as an IPv4 address by URL parsers.
  const looksNumeric = /^(?:\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1] ?? '');
  if (!HOST_NAME.test(name) || name.length > 253 || labels.some((l) => l.length > 63) || looksNumeric) {
    throw allowHostsError(entry, 'is not a host name, IP address or CIDR range');
  }
  return name;
}

function allowHostsError(entry: string, problem: string): Error {
  return new Error(`DELIVERY_ALLOW_HOSTS: entry "${entry}" ${problem}`);
}
