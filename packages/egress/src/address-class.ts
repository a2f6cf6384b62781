import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A parsed IPv4 or IPv6 address (ipaddr.js). */
export type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** What an address is, for the delivery rules and for messages. */
export interface AddressClass {
  /** Range name, e.g. `unicast`, `private`, `loopback`, `ipv4Mapped`, `invalid`. */
  range: string;
  /** True only for public unicast addresses a webhook may be sent to. */
  public: boolean;
  /** Person-readable class with an article, e.g. `a private address`. */
  description: string;
}

// Cloud instance-metadata services (AWS, GCP, Azure; AWS's IPv6 one): named in messages.
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);
const METADATA: AddressClass = Object.freeze({
  range: 'linkLocal',
  public: false,
  description: 'a link-local (cloud metadata) address',
});
// Azure's platform address (wire server: DHCP, DNS, health probes, the guest agent's
// metadata). Public by range, reachable only from inside Azure, and never a webhook target.
const CLOUD_PLATFORM = new Set(['168.63.129.16']);
const PLATFORM: AddressClass = Object.freeze({
  range: 'cloudPlatform',
  public: false,
  description: "a cloud platform address (Azure's wire server)",
});

// Checked before ipaddr.js's own table: it files these under `reserved`, and the
// messages are clearer with their own names.
const EXTRA_V4_RANGES: Record<string, [ipaddr.IPv4, number][]> = {
  benchmarking: [ipaddr.IPv4.parseCIDR('198.18.0.0/15')],
  documentation: [ipaddr.IPv4.parseCIDR('192.0.2.0/24'), ipaddr.IPv4.parseCIDR('198.51.100.0/24'), ipaddr.IPv4.parseCIDR('203.0.113.0/24')],
};

// Only 2000::/3 is allocated as global unicast; ipaddr.js calls everything it has no
// name for `unicast`, including unassigned space and the old IPv4-compatible ::/96.
const V6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const V6_IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

const DESCRIPTIONS: Record<string, string> = {
  unicast: 'a public address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  as112: 'an AS112 anycast address',
  as112v6: 'an AS112 anycast address',
  amt: 'an AMT anycast address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 (RFC 6052) address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  ipv4Compatible: 'a deprecated IPv4-compatible address',
  unassigned: 'an unassigned IPv6 address',
  invalid: 'not an IP address',
};

/**
 * Parses a plain IPv4 or IPv6 address (no brackets, no CIDR), or returns null. Stricter
 * than ipaddr.js: shorthand forms such as `127.1` or `0x7f000001` are not addresses here.
 */
export function parseAddress(text: string): ParsedAddress | null {
  if (isIP(text) === 0) return null;
  try {
    return ipaddr.parse(text);
  } catch {
    return null;
  }
}

/** Classifies an address. Never throws: anything unparsable is `invalid` and not public. */
export function classifyAddress(ip: string): AddressClass {
  const parsed = parseAddress(ip);
  if (parsed === null) return named('invalid', false);
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const v4 = v6.toIPv4Address();
    const inner = classifyV4(v4);
    // A mapped address reaches the IPv4 host, so the IPv4 rules decide.
    return {
      range: 'ipv4Mapped',
      public: inner.public,
      description: `an IPv4-mapped form of ${v4.toString()}, ${inner.description}`,
    };
  }
  if (CLOUD_METADATA.has(v6.toString())) return METADATA;
  const range = v6.range();
  if (range === 'unicast') {
    if (v6.match(V6_GLOBAL_UNICAST)) return named('unicast', true);
    return named(v6.match(V6_IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'unassigned', false);
  }
  return named(range, false);
}

/** True when `ip` is a public unicast address (IPv4-mapped addresses judged by their IPv4). */
export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip).public;
}

/** The address's class for messages, e.g. `a private address`, `a loopback address`. */
export function describeAddress(ip: string): string {
  return classifyAddress(ip).description;
}

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  if (CLOUD_METADATA.has(v4.toString())) return METADATA;
  if (CLOUD_PLATFORM.has(v4.toString())) return PLATFORM;
  const extra = ipaddr.subnetMatch(v4, EXTRA_V4_RANGES, '');
  if (extra !== '') return named(extra, false);
  const range = v4.range();
  return named(range, range === 'unicast');
}

function named(range: string, isPublic: boolean): AddressClass {
  return { range, public: isPublic, description: DESCRIPTIONS[range] ?? 'a reserved address' };
}
