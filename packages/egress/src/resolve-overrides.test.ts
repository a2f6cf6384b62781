import { describe, expect, it } from 'vitest';
import { lookupWithOverrides, parseResolveOverrides } from './resolve-overrides.ts';

describe('DELIVERY_RESOLVE', () => {
  it('maps listed names (case-insensitive) and falls back for the rest', async () => {
    const map = parseResolveOverrides(' r5.receiver.test:127.0.0.5 , v6.test:[::1] ');
    expect([...map]).toEqual([
      ['r5.receiver.test', '127.0.0.5'],
      ['v6.test', '::1'],
    ]);
    const lookup = lookupWithOverrides(map, async () => [{ address: '93.184.216.34', family: 4 }]);
    expect(await lookup('R5.receiver.test')).toEqual([{ address: '127.0.0.5', family: 4 }]);
    expect(await lookup('v6.test')).toEqual([{ address: '::1', family: 6 }]);
    expect(await lookup('other.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses malformed entries', () => {
    expect(() => parseResolveOverrides('nohost')).toThrow(/"nohost" is not host:address/);
    expect(() => parseResolveOverrides('a.test:not-an-ip')).toThrow(/a\.test:not-an-ip/);
    expect(parseResolveOverrides('').size).toBe(0);
  });
});
