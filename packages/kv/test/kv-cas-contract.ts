// The Kv contract's compareAndSet cases, apart so kv-contract.ts stays short; that file runs them.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Kv } from '../src/kv.ts';

/** What the contract's suite shares with these cases: its adapter of the test, its time, its keys. */
export interface KvContractContext {
  kv(): Kv;
  advance(ms: number): Promise<void>;
  key(k: string): string;
  ttl: number;
}

/** compareAndSet as every adapter must do it; called inside describeKvContract's suite, on its adapter of each test. */
export function describeCompareAndSetContract(ctx: KvContractContext): void {
  const { advance, key, ttl } = ctx;
  const long = ttl * 1000;

  describe('compareAndSet', () => {
    let kv: Kv;
    const cas = (k: string, expected: string | null, next: string | null, ttlMs = long): Promise<boolean> => {
      return kv.compareAndSet(key(k), expected, next, ttlMs);
    };

    beforeEach(() => {
      kv = ctx.kv();
    });

    it('replaces the value it expects, with the new TTL', async () => {
      await kv.set(key('k'), 'a', long);
      expect(await cas('k', 'a', 'b', ttl)).toBe(true);
      expect(await kv.get(key('k'))).toBe('b');
      await advance(ttl * 0.6);
      expect(await kv.get(key('k'))).toBe('b');
      // Had it kept the long expiry of 'a', the key would still be here.
      await advance(ttl * 0.6);
      expect(await kv.get(key('k'))).toBeNull();
    });

    it('answers false on another value and leaves the value and its expiry alone', async () => {
      await kv.set(key('k'), 'a', ttl);
      expect(await cas('k', 'x', 'b')).toBe(false);
      expect(await cas('k', 'a ', 'b')).toBe(false);
      expect(await cas('k', null, 'b')).toBe(false);
      expect(await cas('k', 'x', null)).toBe(false);
      expect(await kv.get(key('k'))).toBe('a');
      await advance(ttl * 1.2);
      expect(await kv.get(key('k'))).toBeNull();
    });

    it('expected null means absent: a missing or expired key, not an empty value', async () => {
      expect(await cas('k', null, 'v')).toBe(true);
      expect(await kv.get(key('k'))).toBe('v');
      expect(await cas('k', null, 'w')).toBe(false);
      await kv.set(key('short'), 'old', ttl);
      await advance(ttl * 1.2);
      expect(await cas('short', 'old', 'new')).toBe(false);
      expect(await cas('short', null, 'new')).toBe(true);
      expect(await kv.get(key('short'))).toBe('new');
      await kv.set(key('empty'), '', long);
      expect(await cas('empty', null, 'x')).toBe(false);
      expect(await cas('missing', '', 'x')).toBe(false);
      expect(await kv.get(key('missing'))).toBeNull();
      expect(await cas('empty', '', 'x')).toBe(true);
      expect(await kv.get(key('empty'))).toBe('x');
    });

    it('next null deletes the key it expects; absent to absent is a success', async () => {
      await kv.set(key('k'), 'a', long);
      expect(await cas('k', 'a', null)).toBe(true);
      expect(await kv.get(key('k'))).toBeNull();
      expect(await kv.setIfAbsent(key('k'), 'b', long)).toBeNull();
      expect(await cas('missing', null, null)).toBe(true);
      expect(await kv.get(key('missing'))).toBeNull();
    });

    it('lets exactly one of 50 concurrent writers expecting the same value win', async () => {
      await kv.set(key('k'), '0', long);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => cas('k', '0', `writer-${i}`)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await kv.get(key('k'))).toBe(`writer-${results.indexOf(true)}`);
    });

    it.each([0, -5, 2.5])('rejects ttlMs %s and changes nothing', async (bad) => {
      await kv.set(key('k'), 'kept', long);
      await expect(cas('k', 'kept', 'v', bad)).rejects.toThrow(RangeError);
      expect(await kv.get(key('k'))).toBe('kept');
    });

    it('rejects once the Kv is closed', async () => {
      await kv.close();
      await expect(cas('k', null, 'v')).rejects.toThrow();
    });
  });
}
