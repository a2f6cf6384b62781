import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformRunner } from './transform-runner.ts';
import type { TransformInput } from './transform-types.ts';

const NOW = 1_780_000_000_000;
const input: TransformInput = { event_type: 'order.created', payload: { order_id: 'o_1' }, headers: {}, url: 'https://hooks.example.com/in' };
const IDENTITY = 'function handler(webhook) { return webhook }';
const ok = { ok: true, cancel: false, payload: { order_id: 'o_1' } };

let runner: TransformRunner;
beforeAll(async () => {
  runner = new TransformRunner();
  await runner.run(IDENTITY, input, NOW);
});
afterAll(() => runner.close());

/** `fn`'s result and how long it took, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

describe('CPU budget (50 ms by default)', () => {
  it('stops an endless loop at the budget, then runs the next code as usual', async () => {
    // Stopped by the interrupt (the budget is the thread's CPU time: no wall-clock bound here, a busy machine would break it).
    const result = await runner.run('function handler(w) { while (true) {} }', input, NOW);
    expect(result).toEqual({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' });
    expect(await runner.run(IDENTITY, input, NOW)).toMatchObject(ok);
  });

  it('the interrupt cannot be caught, and top-level code is under the budget too', async () => {
    const caught = await runner.run('function handler(w) { try { while (true) {} } catch (e) {} return w }', input, NOW);
    expect(caught).toEqual({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' });
    expect(await runner.run('for (;;) {}', input, NOW)).toEqual({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' });
  });

  it('a loop of 100,000 steps is well inside it', async () => {
    const code = 'function handler(w) { let n = 0; for (let i = 0; i < 100000; i++) n += i; return { payload: n } }';
    expect(await runner.run(code, input, NOW)).toMatchObject({ ok: true, payload: 4_999_950_000 });
  });

  it('a budget of 200 ms is reported as such', async () => {
    const slower = new TransformRunner({ cpuBudgetMs: 200 });
    try {
      const [result, ms] = await timed(() => slower.run('while (true) {}', input, NOW));
      expect(result).toEqual({ ok: false, error: 'transformation: ran longer than 200 ms (CPU budget)' });
      expect(ms).toBeGreaterThanOrEqual(200);
    } finally {
      await slower.close();
    }
  });

  it('a built-in that never polls the interrupt: the watchdog ends the thread, a new one runs the next code', async () => {
    const guarded = new TransformRunner({ watchdogGraceMs: 100 });
    try {
      await guarded.run(IDENTITY, input, NOW);
      // A naive substring search in C: 18 s on this machine without the watchdog.
      const code = "function handler(w) { 'a'.repeat(300000).indexOf('a'.repeat(100000) + 'b'); return w }";
      const [result, ms] = await timed(() => guarded.run(code, input, NOW));
      expect(result).toEqual({ ok: false, error: 'transformation: ran longer than 50 ms (CPU budget)' });
      // Not the 18 s of the search: ended by the watchdog (a bound far from both, for a busy machine).
      expect(ms).toBeLessThan(9_000);
      expect(await guarded.run(IDENTITY, input, NOW)).toMatchObject(ok);
    } finally {
      await guarded.close();
    }
  });
});

describe('a run whose thread gets no CPU for a while (a busy machine, a throttled pod)', () => {
  const STOPPED_RUN = new URL('./testing/stopped-run.ts', import.meta.url).pathname;
  /** Runs testing/stopped-run.ts: a 2 s budget, 100 ms grace, its whole process stopped for 3 s with the run in flight. */
  async function stoppedRun(wallLimitMs: number, kind: 'finite' | 'endless'): Promise<{ result: unknown; ms: number }> {
    // SIGKILL: a stopped process would hold a SIGTERM until continued.
    const { stdout } = await promisify(execFile)(process.execPath, [STOPPED_RUN, String(wallLimitMs), kind], { timeout: 30_000, killSignal: 'SIGKILL' });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  }

  it('is not failed as over its CPU budget: the watchdog reads the CPU its thread used (2.1 s of wall clock passed, not of CPU)', async () => {
    const { result, ms } = await stoppedRun(10_000, 'finite');
    expect(ms).toBeGreaterThanOrEqual(3_000);
    expect(result).toMatchObject({ ok: true, payload: 1_999_999_000_000 });
  }, 40_000);

  it('past its wall-clock limit (2.5 s here, 10 s by default) it fails with the machine named, not the code', async () => {
    const { result } = await stoppedRun(2_500, 'endless');
    expect(result).toEqual({
      ok: false,
      error: 'transformation: did not finish within 2500 ms, its thread given too little CPU by a busy machine (wall-clock limit)',
    });
  }, 40_000);

  it('the wall-clock limit cannot be below the budget plus the grace', () => {
    expect(() => new TransformRunner({ cpuBudgetMs: 400, watchdogGraceMs: 100, wallLimitMs: 499 })).toThrow(RangeError);
    expect(() => new TransformRunner({ cpuBudgetMs: 400, watchdogGraceMs: 100, wallLimitMs: 500 })).not.toThrow();
  });
});

describe('memory limit (16 MiB = 16,777,216 bytes by default)', () => {
  const MEMORY_ERROR = 'transformation: used more than 16 MB of memory (memory limit)';
  // A CPU budget of 1 s: these runs allocate and zero megabytes, slower in a busy test run than 50 ms allow.
  let roomy: TransformRunner;
  beforeAll(async () => {
    roomy = new TransformRunner({ cpuBudgetMs: 1_000 });
    await roomy.run(IDENTITY, input, NOW);
  });
  afterAll(() => roomy.close());

  it('a 100 MiB allocation fails, and the next run is unaffected', async () => {
    expect(await roomy.run("function handler(w) { return { payload: 'x'.repeat(100 * 1024 * 1024).length } }", input, NOW)).toEqual({
      ok: false,
      error: MEMORY_ERROR,
    });
    expect(await roomy.run(IDENTITY, input, NOW)).toMatchObject(ok);
  });

  it('15 MiB in one allocation fits; 17 MiB does not', async () => {
    const code = (mib: number) => `function handler(w) { return { payload: new ArrayBuffer(${mib} * 1024 * 1024).byteLength } }`;
    expect(await roomy.run(code(15), input, NOW)).toMatchObject({ ok: true, payload: 15 * 1024 * 1024 });
    expect(await roomy.run(code(17), input, NOW)).toEqual({ ok: false, error: MEMORY_ERROR });
  });

  it('1 MiB at a time: 15 fit, the 16th (with the context itself) does not', async () => {
    // QuickJS's own limit cannot count these in its WebAssembly build (it allowed 40): the capped memory does.
    const grow = 'function handler(w) { const kept = []; for (;;) kept.push(new ArrayBuffer(1024 * 1024)) }';
    expect(await roomy.run(grow, input, NOW)).toEqual({ ok: false, error: MEMORY_ERROR });
    const count =
      'function handler(w) { const kept = []; try { for (;;) kept.push(new ArrayBuffer(1024 * 1024)) } catch (e) { return { payload: kept.length } } }';
    expect(await roomy.run(count, input, NOW)).toMatchObject({ ok: true, payload: 15 });
  });

  it('many small objects fail the same way, whatever QuickJS manages to throw', async () => {
    // Out of memory while making the error, QuickJS throws null: still the memory error.
    const objects = 'function handler(w) { const kept = []; for (;;) kept.push({ n: kept.length, s: "s" + kept.length }) }';
    expect(await roomy.run(objects, input, NOW)).toEqual({ ok: false, error: MEMORY_ERROR });
    expect(await roomy.run('function handler(w) { throw null }', input, NOW)).toEqual({ ok: false, error: 'transformation: threw null' });
  });

  it('a payload too large to copy out of the sandbox is the memory error too', async () => {
    expect(await roomy.run("function handler(w) { return { payload: 'y'.repeat(7 * 1024 * 1024) } }", input, NOW)).toEqual({ ok: false, error: MEMORY_ERROR });
  });

  it('caught, the code goes on within the limit: what it returns stands', async () => {
    const caught = 'function handler(w) { try { new ArrayBuffer(100 * 1024 * 1024) } catch (e) { return { payload: String(e) } } }';
    expect(await roomy.run(caught, input, NOW)).toMatchObject({ ok: true, payload: 'InternalError: out of memory' });
  });

  it('new Array(1e8).fill(1) fails with the memory error', async () => {
    // fill writes element by element in C without polling the interrupt (~150 ms here): room so the watchdog does not end it first.
    const patient = new TransformRunner({ watchdogGraceMs: 5_000 });
    try {
      expect(await patient.run('function handler(w) { new Array(1e8).fill(1); return w }', input, NOW)).toEqual({ ok: false, error: MEMORY_ERROR });
      expect(await patient.run(IDENTITY, input, NOW)).toMatchObject(ok);
    } finally {
      await patient.close();
    }
  });

  it('a limit of 4 MiB is reported as such', async () => {
    const small = new TransformRunner({ memoryLimitBytes: 4 * 1024 * 1024, cpuBudgetMs: 1_000 });
    try {
      const code = (mib: number) => `function handler(w) { return { payload: new ArrayBuffer(${mib} * 1024 * 1024).byteLength } }`;
      expect(await small.run(code(3), input, NOW)).toMatchObject({ ok: true, payload: 3 * 1024 * 1024 });
      expect(await small.run(code(5), input, NOW)).toEqual({ ok: false, error: 'transformation: used more than 4 MB of memory (memory limit)' });
    } finally {
      await small.close();
    }
  });
});

describe('stack limit (256 KiB by default)', () => {
  it('deep recursion is an InternalError at its position, and the thread goes on', async () => {
    const code = 'function down(n) { return down(n + 1) + 1 }\nfunction handler(w) { return { payload: down(0) } }';
    expect(await runner.run(code, input, NOW)).toEqual({ ok: false, error: 'transformation: InternalError: stack overflow (line 1, column 31)' });
    expect(await runner.run(IDENTITY, input, NOW)).toMatchObject(ok);
  });

  it('the parser and JSON nest deepest on the native stack: still QuickJS errors, not a lost thread', async () => {
    const parser = "function handler(w) { return { payload: eval('('.repeat(200000) + '1' + ')'.repeat(200000)) } }";
    expect(await runner.run(parser, input, NOW)).toEqual({ ok: false, error: 'transformation: SyntaxError: stack overflow (line 1, column 45)' });
    const json = "function handler(w) { return { payload: JSON.parse('['.repeat(500000)) } }";
    expect(await runner.run(json, input, NOW)).toEqual({ ok: false, error: 'transformation: SyntaxError: stack overflow (line 1, column 51)' });
    expect(await runner.run(IDENTITY, input, NOW)).toMatchObject(ok);
  });
});

describe('isolation', () => {
  it('nothing one run changes reaches the next run or the host', async () => {
    const polluter = `
      Object.prototype.polluted = 'yes';
      Array.prototype.push = null;
      JSON.stringify = () => '{"payload":"forged"}';
      Date.now = () => 0;
      globalThis.leftOver = 1;
      function handler(w) { return w }`;
    expect(await runner.run(polluter, input, NOW)).toMatchObject(ok);
    const probe = `function handler(w) {
      return { payload: [({}).polluted, typeof [].push, JSON.stringify(1), Date.now(), typeof leftOver] };
    }`;
    expect(await runner.run(probe, input, NOW)).toMatchObject({ ok: true, payload: [undefined, 'function', '1', NOW, 'undefined'].map((v) => v ?? null) });
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
  });

  it('a __proto__ key in the payload or headers comes back as an own property, changing no prototype', async () => {
    const code = `function handler(w) {
      return { payload: JSON.parse('{"__proto__": {"polluted": true}}'), headers: JSON.parse('{"__proto__": "x"}') };
    }`;
    const result = await runner.run(code, input, NOW);
    if (!result.ok || result.cancel) throw new Error(`unexpected ${JSON.stringify(result)}`);
    expect(Object.getPrototypeOf(result.payload)).toBe(Object.prototype);
    expect(Object.hasOwn(result.payload as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result.headers, '__proto__')?.value).toBe('x');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('1,000 runs leave the sandbox memory where 100 left it', async () => {
    const code = 'function handler(w) { const big = new ArrayBuffer(2 * 1024 * 1024); globalThis.keep = [big, {}, []]; return { payload: big.byteLength } }';
    for (let i = 0; i < 100; i++) expect(await runner.run(code, input, NOW)).toMatchObject({ ok: true });
    const after100 = runner.wasmMemoryBytes;
    for (let i = 0; i < 1_000; i++) await runner.run(code, input, NOW);
    expect(after100).toBeGreaterThan(0);
    // WebAssembly memory only grows: a run leaking its 2 MiB would have grown it by ~2 GB.
    expect(runner.wasmMemoryBytes).toBe(after100);
  });

  it('runs on several threads come back to their callers', async () => {
    const pool = new TransformRunner({ threads: 3 });
    try {
      const code = 'function handler(w) { return { payload: w.payload.n * 2 } }';
      const results = await Promise.all(Array.from({ length: 30 }, (_, n) => pool.run(code, { ...input, payload: { n } }, NOW)));
      expect(results.map((r) => (r.ok && !r.cancel ? r.payload : r))).toEqual(Array.from({ length: 30 }, (_, n) => n * 2));
    } finally {
      await pool.close();
    }
  });
});

describe('TransformRunner itself', () => {
  it('refuses limits out of range', () => {
    expect(() => new TransformRunner({ cpuBudgetMs: 0 })).toThrow(RangeError);
    expect(() => new TransformRunner({ memoryLimitBytes: 1024 * 1024 - 1 })).toThrow(RangeError);
    expect(() => new TransformRunner({ stackLimitBytes: 1024 * 1024 + 1 })).toThrow(RangeError);
    expect(() => new TransformRunner({ threads: 0 })).toThrow(RangeError);
  });

  it('refuses a now that is not a number of milliseconds, and runs after close', async () => {
    await expect(runner.run(IDENTITY, input, Number.NaN)).rejects.toThrow(RangeError);
    const closed = new TransformRunner();
    await closed.close();
    await expect(closed.run(IDENTITY, input, NOW)).rejects.toThrow('TransformRunner is closed');
  });
});
