import { describe, expect, it } from 'vitest';
import { classifyAddress, describeAddress, isPublicAddress, parseAddress } from './address-class.ts';

// [address, public?, expected description fragment]
const IPV4: [string, boolean, string][] = [
  ['8.8.8.8', true, 'public'],
  ['1.1.1.1', true, 'public'],
  ['93.184.216.34', true, 'public'],
  ['11.0.0.1', true, 'public'],
  ['172.15.255.255', true, 'public'],
  ['172.32.0.1', true, 'public'],
  ['192.169.0.1', true, 'public'],
  ['100.63.255.255', true, 'public'],
  ['100.128.0.1', true, 'public'],
  ['169.253.255.255', true, 'public'],
  ['198.17.255.255', true, 'public'],
  ['198.20.0.1', true, 'public'],
  ['0.0.0.0', false, 'unspecified'],
  ['0.1.2.3', false, 'unspecified'],
  ['10.0.0.5', false, 'private'],
  ['10.255.255.255', false, 'private'],
  ['172.16.0.1', false, 'private'],
  ['172.31.255.255', false, 'private'],
  ['192.168.1.1', false, 'private'],
  ['127.0.0.1', false, 'loopback'],
  ['127.255.255.254', false, 'loopback'],
  ['169.254.0.1', false, 'link-local'],
  ['169.254.169.254', false, 'cloud metadata'],
  ['168.63.129.16', false, "cloud platform address (Azure's wire server)"],
  ['168.63.129.15', true, 'a public address'],
  ['100.64.0.1', false, 'carrier-grade NAT'],
  ['100.127.255.255', false, 'carrier-grade NAT'],
  ['224.0.0.1', false, 'multicast'],
  ['239.255.255.250', false, 'multicast'],
  ['255.255.255.255', false, 'broadcast'],
  ['240.0.0.1', false, 'reserved'],
  ['192.0.0.8', false, 'reserved'],
  ['192.88.99.1', false, 'reserved'],
  ['192.0.2.1', false, 'documentation'],
  ['198.51.100.7', false, 'documentation'],
  ['203.0.113.9', false, 'documentation'],
  ['198.18.0.1', false, 'benchmarking'],
  ['198.19.255.255', false, 'benchmarking'],
];

const IPV6: [string, boolean, string][] = [
  ['2606:4700:4700::1111', true, 'public'],
  ['2001:4860:4860::8888', true, 'public'],
  ['2a00:1450:4001:80b::200e', true, 'public'],
  ['::', false, 'unspecified'],
  ['::1', false, 'loopback'],
  ['fe80::1', false, 'link-local'],
  ['fe80::1%eth0', false, 'link-local'],
  ['febf::1', false, 'link-local'],
  ['fc00::1', false, 'unique-local'],
  ['fd12:3456::1', false, 'unique-local'],
  ['fd00:ec2::254', false, 'cloud metadata'],
  ['ff02::1', false, 'multicast'],
  ['ff05::2', false, 'multicast'],
  ['fec0::1', false, 'site-local'],
  ['100::1', false, 'discard'],
  ['64:ff9b::a00:1', false, 'NAT64'],
  ['64:ff9b:1::1', false, 'NAT64'],
  ['2002:c0a8:101::1', false, '6to4'],
  ['2001::1', false, 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo'],
  ['2001:2::1', false, 'benchmarking'],
  ['2001:db8::1', false, 'reserved'],
  ['3fff::1', false, 'reserved'],
  ['::ffff:0:a00:1', false, 'IPv4-translated'],
  ['::7f00:1', false, 'IPv4-compatible'],
  ['4000::1', false, 'unassigned'],
];

// IPv4-mapped IPv6 addresses are judged by the IPv4 address they map to.
const MAPPED: [string, boolean, string][] = [
  ['::ffff:8.8.8.8', true, 'IPv4-mapped form of 8.8.8.8, a public address'],
  ['::ffff:808:808', true, 'IPv4-mapped form of 8.8.8.8, a public address'],
  ['::ffff:127.0.0.1', false, 'IPv4-mapped form of 127.0.0.1, a loopback address'],
  ['::ffff:7f00:1', false, 'IPv4-mapped form of 127.0.0.1, a loopback address'],
  ['::ffff:10.0.0.5', false, '10.0.0.5, a private address'],
  ['::ffff:169.254.169.254', false, 'cloud metadata'],
  ['::ffff:168.63.129.16', false, 'cloud platform address'],
  ['::ffff:0.0.0.0', false, 'unspecified'],
  ['::ffff:100.64.0.1', false, 'carrier-grade NAT'],
  ['::ffff:198.18.0.1', false, 'benchmarking'],
];

const NOT_ADDRESSES = [
  '',
  'localhost',
  'example.com',
  '127.1',
  '0x7f000001',
  '2130706433',
  '10.0.0.0/8',
  '[::1]',
  '1.2.3.4.5',
  '256.0.0.1',
  '::ffff:999.0.0.1',
  ' 8.8.8.8',
];

describe('classifyAddress', () => {
  it.each([...IPV4, ...IPV6, ...MAPPED])('%s → public=%s (%s)', (ip, isPublic, fragment) => {
    const cls = classifyAddress(ip);
    expect(cls.public).toBe(isPublic);
    expect(isPublicAddress(ip)).toBe(isPublic);
    expect(describeAddress(ip)).toContain(fragment);
  });

  it.each(NOT_ADDRESSES)('%j is not an address and never public', (text) => {
    expect(parseAddress(text)).toBeNull();
    expect(classifyAddress(text)).toEqual({ range: 'invalid', public: false, description: 'not an IP address' });
  });

  it('names the range of a mapped address as ipv4Mapped', () => {
    expect(classifyAddress('::ffff:10.0.0.5').range).toBe('ipv4Mapped');
    expect(classifyAddress('10.0.0.5').range).toBe('private');
  });

  it('starts every description with an article, for use after a comma in messages', () => {
    for (const [ip] of [...IPV4, ...IPV6, ...MAPPED]) {
      expect(describeAddress(ip)).toMatch(/^(a|an|the) /);
    }
  });
});
