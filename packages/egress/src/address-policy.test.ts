import { describe, expect, it } from 'vitest';
import { AddressPolicy, normalizeHostName, parseAllowHosts } from './address-policy.ts';

describe('AddressPolicy without an allow list', () => {
  const policy = new AddressPolicy();

  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['10.0.0.5', false],
    ['127.0.0.1', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['169.254.169.254', false],
    ['not-an-ip', false],
  ])('isAllowedAddress(%s) = %s', (ip, expected) => {
    expect(policy.isAllowedAddress(ip)).toBe(expected);
  });

  it('lists nothing', () => {
    expect(policy.isListedAddress('8.8.8.8')).toBe(false);
    expect(policy.isAllowedHostName('localhost')).toBe(false);
  });

  it('treats an empty or blank value as no allow list', () => {
    for (const value of ['', ' ', ',', ' , ,']) {
      const p = new AddressPolicy({ allowHosts: value });
      expect(p.isAllowedAddress('127.0.0.1')).toBe(false);
      expect(p.isAllowedHostName('localhost')).toBe(false);
    }
  });
});

describe('AddressPolicy with IPs and CIDRs', () => {
  const policy = new AddressPolicy({
    allowHosts: ' 10.0.0.0/8, 192.168.1.7,fd00::/8 , ::1, [fe80::1],, 172.16.5.0/30',
  });

  it.each([
    ['10.1.2.3', true],
    ['10.255.255.255', true],
    ['11.0.0.1', true], // public anyway
    ['192.168.1.7', true],
    ['192.168.1.8', false],
    ['172.16.5.3', true],
    ['172.16.5.4', false],
    ['fd12::1', true],
    ['fdff:ffff::1', true],
    ['fc00::1', false],
    ['::1', true],
    ['::2', false],
    ['fe80::1', true],
    ['fe80::2', false],
    ['::ffff:10.9.9.9', true], // mapped form matches the IPv4 entry
    ['::ffff:192.168.1.8', false],
    ['127.0.0.1', false],
  ])('isAllowedAddress(%s) = %s', (ip, expected) => {
    expect(policy.isAllowedAddress(ip)).toBe(expected);
  });

  it('lists only the entries, not public addresses', () => {
    expect(policy.isListedAddress('10.0.0.1')).toBe(true);
    expect(policy.isListedAddress('8.8.8.8')).toBe(false);
  });

  it('does not treat IP entries as host names', () => {
    expect(policy.isAllowedHostName('192.168.1.7')).toBe(false);
  });

  it('keeps IPv4 and IPv6 ranges apart', () => {
    const all4 = new AddressPolicy({ allowHosts: '0.0.0.0/0' });
    expect(all4.isAllowedAddress('127.0.0.1')).toBe(true);
    expect(all4.isAllowedAddress('::1')).toBe(false);
    const all6 = new AddressPolicy({ allowHosts: '::/0' });
    expect(all6.isAllowedAddress('::1')).toBe(true);
    expect(all6.isAllowedAddress('127.0.0.1')).toBe(false);
  });
});

describe('AddressPolicy with host names', () => {
  const policy = new AddressPolicy({ allowHosts: 'localhost, Receiver.Test., hooks_dev.internal' });

  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['receiver.test', true],
    ['RECEIVER.TEST.', true],
    ['hooks_dev.internal', true],
    ['other.test', false],
    ['sub.localhost', false],
    ['receiver.test.evil.com', false],
    ['127.0.0.1', false],
  ])('isAllowedHostName(%s) = %s', (host, expected) => {
    expect(policy.isAllowedHostName(host)).toBe(expected);
  });

  it('does not allow addresses because of a name', () => {
    expect(policy.isAllowedAddress('127.0.0.1')).toBe(false);
  });
});

describe('parseAllowHosts', () => {
  it('splits names and ranges', () => {
    const { names, ranges } = parseAllowHosts('a.test, 10.0.0.0/8, ::1');
    expect([...names]).toEqual(['a.test']);
    expect(ranges.map(([ip, bits]) => `${ip.toString()}/${bits}`)).toEqual(['10.0.0.0/8', '::1/128']);
  });

  it.each([
    'foo bar',
    'exa mple.com',
    'ex*ample.com',
    'a..b',
    '-bad.com',
    'bad-.com',
    'localhost:8443',
    'http://example.com',
    '300.1.1.1',
    '127.1',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.0/',
    '/8',
    '10.0.0.0/8/9',
    '10.0.0.0/x',
    'example.com/24',
    '[::1]/128',
    `${'a'.repeat(64)}.com`,
  ])('rejects %j with an error naming the entry', (entry) => {
    expect(() => new AddressPolicy({ allowHosts: `ok.test, ${entry}` })).toThrow(`DELIVERY_ALLOW_HOSTS: entry "${entry}"`);
  });
});

describe('normalizeHostName', () => {
  it('lower-cases and drops one trailing dot', () => {
    expect(normalizeHostName('Example.COM.')).toBe('example.com');
    expect(normalizeHostName('example.com')).toBe('example.com');
  });
});
