// The Kv contract: what every adapter must do, as one vitest suite, run by each adapter's test.
// It lives in test/, outside src, so production code never loads vitest.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Kv, STEPPED_BACK_MS } from '../src/kv.ts';
import { describeCompareAndSetContract } from './kv-cas-contract.ts';

/** One fresh adapter for one contract test. */
export interface KvHarness {
  kv: Kv;
  /**
   * Moves the adapter's time forward by `ms`. An adapter on a ManualClock advances it;
   * Redis keeps real time, so its harness sleeps (and passes a short `ttlMs`).
   */
  advance(ms: number): void | Promise<void>;
}

/** Options for {@link describeKvContract}. */
export interface KvContractOptions {
  /**
   * The TTL the expiry cases use; they move time by fractions of it (0.5, 0.6, 1.2) so a
   * real-time adapter has margins of at least a tenth of it. Default 1000.
   */
  ttlMs?: number;
}

/**
 * The Kv contract as a vitest suite, for every adapter. Call it at the top level of a
 * test file; `open` is called before each test and the Kv is closed after it. Keys carry
 * a random prefix, so the suite can run against a shared server.
 */
export function describeKvContract(name: string, open: () => Promise<KvHarness>, options: KvContractOptions = {}): void {
  const ttl = options.ttlMs ?? 1000;
  const long = ttl * 1000;

  describe(`Kv contract: ${name}`, () => {
    let kv: Kv;
    let advance: (ms: number) => Promise<void>;
    let prefix: string;
    const key = (k: string): string => `${prefix}${k}`;

    beforeEach(async () => {
      const harness = await open();
      kv = harness.kv;
      advance = async (ms) => harness.advance(Math.round(ms));
      prefix = `kv-contract:${randomUUID()}:`;
    });

    afterEach(async () => {
      await kv.close();
    });

    describe('incr', () => {
      it('starts a missing key at 1 and counts up; get reads the count', async () => {
        expect(await kv.incr(key('n'), long)).toBe(1);
        expect(await kv.incr(key('n'), long)).toBe(2);
        expect(await kv.incr(key('n'), long)).toBe(3);
        expect(await kv.get(key('n'))).toBe('3');
      });

      it('counts each key separately', async () => {
        await kv.incr(key('a'), long);
        await kv.incr(key('a'), long);
        expect(await kv.incr(key('b'), long)).toBe(1);
        expect(await kv.get(key('a'))).toBe('2');
      });

      it('keeps the expiry set on creation, then starts again at 1', async () => {
        await kv.incr(key('n'), ttl);
        await advance(ttl * 0.6);
        expect(await kv.incr(key('n'), ttl)).toBe(2);
        // Had the second incr extended the expiry, the key would still be here.
        await advance(ttl * 0.6);
        expect(await kv.get(key('n'))).toBeNull();
        expect(await kv.incr(key('n'), ttl)).toBe(1);
      });

      it('gives 50 concurrent increments the values 1 to 50, each once', async () => {
        const values = await Promise.all(Array.from({ length: 50 }, () => kv.incr(key('n'), long)));
        expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        expect(await kv.get(key('n'))).toBe('50');
      });

      it('rejects on a value that is not an integer and leaves it alone', async () => {
        await kv.setIfAbsent(key('s'), 'abc', long);
        await expect(kv.incr(key('s'), long)).rejects.toThrow();
        expect(await kv.get(key('s'))).toBe('abc');
      });

      it('increments an integer stored as a string', async () => {
        await kv.setIfAbsent(key('s'), '41', long);
        expect(await kv.incr(key('s'), long)).toBe(42);
      });

      it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects ttlMs %s', async (bad) => {
        await expect(kv.incr(key('n'), bad)).rejects.toThrow(RangeError);
        expect(await kv.get(key('n'))).toBeNull();
      });
    });

    describe('get', () => {
      it('returns null for a missing key', async () => {
        expect(await kv.get(key('missing'))).toBeNull();
      });

      it('returns the value until the TTL passes, then null', async () => {
        await kv.setIfAbsent(key('k'), 'v', ttl);
        await advance(ttl * 0.5);
        expect(await kv.get(key('k'))).toBe('v');
        await advance(ttl * 0.7);
        expect(await kv.get(key('k'))).toBeNull();
      });
    });

    describe('setIfAbsent', () => {
      it('stores when absent (null), then returns the first value and keeps it', async () => {
        expect(await kv.setIfAbsent(key('k'), 'first', long)).toBeNull();
        expect(await kv.setIfAbsent(key('k'), 'second', long)).toBe('first');
        expect(await kv.get(key('k'))).toBe('first');
      });

      it('stores empty strings and other text exactly', async () => {
        expect(await kv.setIfAbsent(key('empty'), '', long)).toBeNull();
        expect(await kv.setIfAbsent(key('empty'), 'x', long)).toBe('');
        const text = 'msg_01J… ✓ "quoted" \n line';
        await kv.setIfAbsent(key('text'), text, long);
        expect(await kv.get(key('text'))).toBe(text);
      });

      it('does not extend the expiry for a losing writer; after expiry a new writer wins', async () => {
        await kv.setIfAbsent(key('k'), 'a', ttl);
        await advance(ttl * 0.6);
        expect(await kv.setIfAbsent(key('k'), 'b', ttl)).toBe('a');
        await advance(ttl * 0.6);
        expect(await kv.get(key('k'))).toBeNull();
        expect(await kv.setIfAbsent(key('k'), 'c', ttl)).toBeNull();
        expect(await kv.get(key('k'))).toBe('c');
      });

      it('lets exactly one of 50 concurrent writers win', async () => {
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => kv.setIfAbsent(key('k'), `writer-${i}`, long)));
        expect(results.filter((r) => r === null)).toHaveLength(1);
        const winner = `writer-${results.indexOf(null)}`;
        expect(results.filter((r) => r !== null).every((r) => r === winner)).toBe(true);
        expect(await kv.get(key('k'))).toBe(winner);
      });

      it.each([0, -5, 2.5])('rejects ttlMs %s', async (bad) => {
        await expect(kv.setIfAbsent(key('k'), 'v', bad)).rejects.toThrow(RangeError);
        expect(await kv.get(key('k'))).toBeNull();
      });
    });

    describe('set', () => {
      it('stores a missing key, and replaces a value that is there', async () => {
        await kv.set(key('k'), 'first', long);
        expect(await kv.get(key('k'))).toBe('first');
        await kv.set(key('k'), 'second', long);
        expect(await kv.get(key('k'))).toBe('second');
        expect(await kv.setIfAbsent(key('k'), 'third', long)).toBe('second');
      });

      it('replaces the expiry too: a longer one keeps the key, a shorter one ends it sooner', async () => {
        await kv.setIfAbsent(key('longer'), 'a', ttl);
        await kv.set(key('shorter'), 'a', long);
        await advance(ttl * 0.6);
        await kv.set(key('longer'), 'b', ttl);
        await kv.set(key('shorter'), 'b', ttl * 0.5);
        await advance(ttl * 0.6);
        // Had set kept the first expiry, `longer` would be gone and `shorter` still here.
        expect(await kv.get(key('longer'))).toBe('b');
        expect(await kv.get(key('shorter'))).toBeNull();
      });

      it('replaces a counter with text, and text with a counter that counts on', async () => {
        await kv.incr(key('n'), long);
        await kv.set(key('n'), 'text', long);
        expect(await kv.get(key('n'))).toBe('text');
        await kv.set(key('n'), '41', long);
        expect(await kv.incr(key('n'), long)).toBe(42);
      });

      it.each([0, -5, 2.5])('rejects ttlMs %s', async (bad) => {
        await kv.set(key('k'), 'kept', long);
        await expect(kv.set(key('k'), 'v', bad)).rejects.toThrow(RangeError);
        expect(await kv.get(key('k'))).toBe('kept');
      });
    });

    describe('deleteIfEquals', () => {
      it('removes the key only while it holds exactly the value', async () => {
        await kv.set(key('k'), 'mine', long);
        expect(await kv.deleteIfEquals(key('k'), 'theirs')).toBe(false);
        expect(await kv.deleteIfEquals(key('k'), 'min')).toBe(false);
        expect(await kv.get(key('k'))).toBe('mine');
        expect(await kv.deleteIfEquals(key('k'), 'mine')).toBe(true);
        expect(await kv.get(key('k'))).toBeNull();
        expect(await kv.setIfAbsent(key('k'), 'next', long)).toBeNull();
      });

      it('answers false for a missing or expired key', async () => {
        expect(await kv.deleteIfEquals(key('missing'), 'v')).toBe(false);
        await kv.set(key('k'), 'v', ttl);
        await advance(ttl * 1.2);
        expect(await kv.deleteIfEquals(key('k'), 'v')).toBe(false);
        expect(await kv.get(key('k'))).toBeNull();
      });

      it('leaves a value written over the marker alone (the owner clears only its own)', async () => {
        await kv.setIfAbsent(key('k'), 'pending:a', long);
        await kv.set(key('k'), 'answer', long);
        expect(await kv.deleteIfEquals(key('k'), 'pending:a')).toBe(false);
        expect(await kv.get(key('k'))).toBe('answer');
      });

      it('removes for exactly one of 50 concurrent callers', async () => {
        await kv.set(key('k'), 'v', long);
        const results = await Promise.all(Array.from({ length: 50 }, () => kv.deleteIfEquals(key('k'), 'v')));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('delete', () => {
      it('removes a key, so it can be set and counted afresh', async () => {
        await kv.setIfAbsent(key('k'), 'v', long);
        await kv.incr(key('n'), long);
        await kv.incr(key('n'), long);
        await kv.delete(key('k'));
        await kv.delete(key('n'));
        expect(await kv.get(key('k'))).toBeNull();
        expect(await kv.setIfAbsent(key('k'), 'w', long)).toBeNull();
        expect(await kv.incr(key('n'), long)).toBe(1);
      });

      it('accepts a missing key and leaves other keys alone', async () => {
        await kv.setIfAbsent(key('other'), 'v', long);
        await expect(kv.delete(key('missing'))).resolves.toBeUndefined();
        expect(await kv.get(key('other'))).toBe('v');
      });
    });

    describe('sliding log (logAdmit, logRemove, logCount)', () => {
      // Times are passed in, so the cases need no waiting; the window is long so Redis keeps the key.
      const window = long;
      const t0 = 1_000_000;

      it('admits up to the limit within the window, then says how long until the oldest leaves', async () => {
        expect(await kv.logAdmit(key('log'), 'a', 3, window, t0)).toBe(0);
        expect(await kv.logAdmit(key('log'), 'b', 3, window, t0 + 10)).toBe(0);
        expect(await kv.logAdmit(key('log'), 'c', 3, window, t0 + 20)).toBe(0);
        expect(await kv.logAdmit(key('log'), 'd', 3, window, t0 + 30)).toBe(window - 30);
        expect(await kv.logCount(key('log'), window, t0 + 30)).toBe(3);
      });

      it('slides: an entry leaves exactly windowMs after it was added', async () => {
        await kv.logAdmit(key('log'), 'a', 1, window, t0);
        expect(await kv.logAdmit(key('log'), 'b', 1, window, t0 + window - 1)).toBe(1);
        expect(await kv.logAdmit(key('log'), 'b', 1, window, t0 + window)).toBe(0);
        expect(await kv.logCount(key('log'), window, t0 + window)).toBe(1);
      });

      it('counts its own window when a call stamped later arrived first (two dispatchers): never more than the limit in any window', async () => {
        // Limit 2: a at t0, b at t0 + 1; then a call stamped t0 + window + 50 arrives first
        // (a and b are out of its window: it is let in), then one stamped t0 + window - 5
        // (a and b are in its window, with the later one: refused — letting it in would put 3
        // in (t0 - 5, t0 + window - 5]).
        await kv.logAdmit(key('log'), 'a', 2, window, t0);
        await kv.logAdmit(key('log'), 'b', 2, window, t0 + 1);
        expect(await kv.logAdmit(key('log'), 'late', 2, window, t0 + window + 50)).toBe(0);
        expect(await kv.logAdmit(key('log'), 'early', 2, window, t0 + window - 5)).toBeGreaterThan(0);
      });

      it('an entry stamped over a window ahead (made before the clock stepped back) counts as made now: held one window, not the step', async () => {
        // Limit 2, filled at 10 windows ahead of t0; then the clock has stepped back to t0.
        const ahead = t0 + 10 * window;
        await kv.logAdmit(key('log'), 'a', 2, window, ahead);
        await kv.logAdmit(key('log'), 'b', 2, window, ahead + 1);
        // Both count as made at t0: full, the wait one window — not the 10 windows and more until their own times.
        expect(await kv.logAdmit(key('log'), 'c', 2, window, t0)).toBe(window);
        expect(await kv.logAdmit(key('log'), 'c', 2, window, t0 + window - 1)).toBe(1);
        expect(await kv.logAdmit(key('log'), 'c', 2, window, t0 + window)).toBe(0);
        // One a window ahead or less keeps its time (a dispatcher's stamped a moment later): it holds its own window.
        await kv.logAdmit(key('other'), 'x', 1, window, t0 + window);
        expect(await kv.logAdmit(key('other'), 'y', 1, window, t0)).toBe(2 * window);
      });

      it(`a dispatcher whose clock runs ahead (under ${STEPPED_BACK_MS / 1000} s) cannot refill the window through another's calls`, async () => {
        // A window of 1 s, a limit of 3; A's clock 1.5 s ahead of B's.
        const ahead = t0 + 1_500;
        for (const n of [0, 1, 2]) expect(await kv.logAdmit(key('skew'), `a${n}`, 3, 1_000, ahead + n)).toBe(0);
        // B's call counts A's three where they are (refused: they leave B's window when A's time has passed it) ...
        expect(await kv.logAdmit(key('skew'), 'b', 3, 1_000, t0)).toBe(2_500);
        // ... and leaves them there: A's next call finds its window still full (restamped at B's time, it had been empty).
        expect(await kv.logAdmit(key('skew'), 'a3', 3, 1_000, ahead + 10)).toBe(990);
      });

      it(`an entry ${STEPPED_BACK_MS / 1000} s ahead keeps its time; one a millisecond further counts as made at the call's`, async () => {
        await kv.logAdmit(key('kept'), 'x', 1, 1_000, t0 + STEPPED_BACK_MS);
        expect(await kv.logAdmit(key('kept'), 'y', 1, 1_000, t0)).toBe(STEPPED_BACK_MS + 1_000);
        await kv.logAdmit(key('moved'), 'x', 1, 1_000, t0 + STEPPED_BACK_MS + 1);
        expect(await kv.logAdmit(key('moved'), 'y', 1, 1_000, t0)).toBe(1_000);
      });

      it('logRemove frees a place at once; a missing member is no error', async () => {
        await kv.logAdmit(key('log'), 'a', 1, window, t0);
        await kv.logRemove(key('log'), 'a');
        await kv.logRemove(key('log'), 'missing');
        expect(await kv.logAdmit(key('log'), 'b', 1, window, t0 + 1)).toBe(0);
      });

      it('logRemove with a signal frees the place and tells each listener of that channel once; without one, or once stopped, nobody', async () => {
        const heard: string[] = [];
        const stopA = await kv.listen(key('freed'), () => heard.push('a'));
        await kv.listen(key('freed'), () => heard.push('b'));
        await kv.listen(key('other'), () => heard.push('other'));
        await kv.logAdmit(key('log'), 'm1', 1, window, t0);
        await kv.logRemove(key('log'), 'm1'); // no signal
        await kv.logAdmit(key('log'), 'm2', 1, window, t0 + 1);
        await kv.logRemove(key('log'), 'm2', key('freed'));
        expect(await kv.logAdmit(key('log'), 'm3', 1, window, t0 + 2)).toBe(0);
        // Signals reach one listener in the order they were sent: when b hears this one, the
        // unsignalled remove above would have been heard before it.
        await vi.waitFor(() => expect(heard.toSorted()).toEqual(['a', 'b']));
        stopA();
        await kv.logRemove(key('log'), 'm3', key('freed'));
        await vi.waitFor(() => expect(heard.filter((h) => h === 'b')).toHaveLength(2));
        // a stopped before the second signal, which b has heard: a cannot still hear it.
        expect(heard.toSorted()).toEqual(['a', 'b', 'b']);
      });

      it('lets exactly the limit of 50 concurrent callers in', async () => {
        const waits = await Promise.all(Array.from({ length: 50 }, (_, i) => kv.logAdmit(key('log'), `m${i}`, 10, window, t0)));
        expect(waits.filter((w) => w === 0)).toHaveLength(10);
        expect(await kv.logCount(key('log'), window, t0)).toBe(10);
      });

      it('refuses a limit that is not a positive integer', async () => {
        await expect(kv.logAdmit(key('log'), 'a', 0, window, t0)).rejects.toThrow(RangeError);
        await expect(kv.logAdmit(key('log'), 'a', 1.5, window, t0)).rejects.toThrow(RangeError);
      });

      describe('logAdmitLimitedBy', () => {
        const state = '{"limit":2,"ceiling":4,"successes":0,"cutAt":5}';

        it('admits within defaultLimit while the limit key is missing, and answers its value null', async () => {
          expect(await kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), 2, window, t0)).toEqual({ wait: 0, limitValue: null });
          expect(await kv.logAdmitLimitedBy(key('log'), 'b', key('limit'), 2, window, t0 + 10)).toEqual({ wait: 0, limitValue: null });
          expect(await kv.logAdmitLimitedBy(key('log'), 'c', key('limit'), 2, window, t0 + 30)).toEqual({ wait: window - 30, limitValue: null });
          expect(await kv.logCount(key('log'), window, t0 + 30)).toBe(2);
        });

        it("admits within the stored value's limit, not the default, and answers the value exactly as stored", async () => {
          await kv.set(key('limit'), state, long);
          expect(await kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), 10, window, t0)).toEqual({ wait: 0, limitValue: state });
          expect(await kv.logAdmitLimitedBy(key('log'), 'b', key('limit'), 10, window, t0 + 10)).toEqual({ wait: 0, limitValue: state });
          expect(await kv.logAdmitLimitedBy(key('log'), 'c', key('limit'), 10, window, t0 + 20)).toEqual({ wait: window - 20, limitValue: state });
          expect(await kv.logCount(key('log'), window, t0 + 20)).toBe(2);
        });

        it('reads the limit at each call: a limit raised between two calls lets the next one in', async () => {
          await kv.set(key('limit'), '{"limit":1}', long);
          expect((await kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), 10, window, t0)).wait).toBe(0);
          expect((await kv.logAdmitLimitedBy(key('log'), 'b', key('limit'), 10, window, t0 + 1)).wait).toBe(window - 1);
          await kv.set(key('limit'), '{"limit":2}', long);
          expect(await kv.logAdmitLimitedBy(key('log'), 'b', key('limit'), 10, window, t0 + 2)).toEqual({ wait: 0, limitValue: '{"limit":2}' });
        });

        it.each(['not json', '{"x":1}', '{"limit":0}', '{"limit":1.5}', '{"limit":-2}', '{"limit":"1"}', '[1]', 'null', '7'])(
          'takes defaultLimit when the limit key holds %s',
          async (bad) => {
            await kv.set(key('limit'), bad, long);
            // Default 2: a value read as limit 1 (or 0, or a rejection) would refuse the second.
            for (const [i, member] of ['a', 'b'].entries()) {
              expect(await kv.logAdmitLimitedBy(key('log'), member, key('limit'), 2, window, t0 + i)).toEqual({ wait: 0, limitValue: bad });
            }
            expect((await kv.logAdmitLimitedBy(key('log'), 'c', key('limit'), 2, window, t0 + 2)).wait).toBe(window - 2);
          },
        );

        it('adds nothing when it refuses', async () => {
          await kv.set(key('limit'), '{"limit":1}', long);
          await kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), 10, window, t0);
          expect((await kv.logAdmitLimitedBy(key('log'), 'b', key('limit'), 10, window, t0 + 1)).wait).toBeGreaterThan(0);
          expect(await kv.logCount(key('log'), window, t0 + 1)).toBe(1);
          // Had the refused `b` been added, removing `a` would leave no place for `c`.
          await kv.logRemove(key('log'), 'a');
          expect((await kv.logAdmitLimitedBy(key('log'), 'c', key('limit'), 10, window, t0 + 2)).wait).toBe(0);
        });

        it.each([0, -1, 1.5, Number.NaN])('rejects %s as defaultLimit or as windowMs', async (bad) => {
          await expect(kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), bad, window, t0)).rejects.toThrow(RangeError);
          await expect(kv.logAdmitLimitedBy(key('log'), 'a', key('limit'), 1, bad, t0)).rejects.toThrow(RangeError);
          expect(await kv.logCount(key('log'), window, t0)).toBe(0);
        });
      });
    });

    describe('close', () => {
      it('is idempotent, and other calls reject afterwards', async () => {
        await kv.close();
        await expect(kv.close()).resolves.toBeUndefined();
        await expect(kv.get(key('k'))).rejects.toThrow();
        await expect(kv.incr(key('n'), long)).rejects.toThrow();
        await expect(kv.setIfAbsent(key('k'), 'v', long)).rejects.toThrow();
        await expect(kv.delete(key('k'))).rejects.toThrow();
        await expect(kv.set(key('k'), 'v', long)).rejects.toThrow();
        await expect(kv.deleteIfEquals(key('k'), 'v')).rejects.toThrow();
        await expect(kv.listen(key('c'), () => undefined)).rejects.toThrow();
      });
    });

    describeCompareAndSetContract({ kv: () => kv, advance: (ms) => advance(ms), key, ttl });
  });
}
