// `pnpm bench --only transform` (or `node bench/transform.ts [--runs N] [--count N] [--out DIR]`): what one
// endpoint transformation (issue 45) costs, against a baseline of the same run. In this process,
// no Wirehook started: @wirehook/transform's TransformRunner (QuickJS in WebAssembly on a worker
// thread, a fresh runtime per run) renames a field of the bench's 1 KB payload, one run at a
// time; the baseline does the same rename in Node — the input to JSON text and back, the field
// renamed, the result to JSON text — the least any transformation passing data as JSON costs.
// Reported, each the median of the runs: µs per run and the ratio to the baseline; CPU per run,
// the event loop's share apart (what the dispatcher's thread would pay); runs/s with a thread per
// CPU (at most 4) at 16 in flight; and the largest code allowed (32,768 bytes), whose compiling
// dominates its runs.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TransformRunner } from '../packages/transform/src/index.ts';
import { median, round } from './report/stats.ts';
import { payloadJson } from './setup/payload.ts';
import { RENAME_TRANSFORMATION as RENAME } from './setup/transformation.ts';

/** The same handler among helpers, to the 32,768-byte limit: compiling it is most of its cost. */
const LARGEST = padTo(RENAME, 32_768);
const NOW = Date.UTC(2026, 0, 1);
/** Sandbox threads for the throughput figure: one per CPU, at most 4. */
const THREADS = Math.min(4, availableParallelism());
const IN_FLIGHT = 16;

export interface TransformFigures {
  runs: number;
  count: number;
  cpus: number;
  /** The machine's 1-minute load average at the start: other work shares the cores. */
  loadAverage: number;
  baselineUsPerRun: number;
  transformUsPerRun: number;
  /** transformUsPerRun / baselineUsPerRun. */
  ratio: number;
  cpuUsPerRun: number;
  eventLoopCpuUsPerRun: number;
  /** With THREADS sandbox threads and IN_FLIGHT runs waiting at once. */
  threadedRunsPerSecond: number;
  largestCodeUsPerRun: number;
}

export async function runTransformBench(options: { runs: number; count: number }, outDir: string | undefined, log: (line: string) => void): Promise<boolean> {
  const input = {
    event_type: 'bench.event',
    payload: JSON.parse(payloadJson(1024)) as Record<string, unknown>,
    headers: { 'x-bench': '1' },
    url: 'https://127.0.0.1:8443/in',
  };
  const loadAverage = round(loadavg()[0] ?? 0, 2);
  const runner = new TransformRunner();
  const pool = new TransformRunner({ threads: THREADS });
  const samples: Omit<TransformFigures, 'runs' | 'count' | 'cpus' | 'loadAverage' | 'ratio'>[] = [];
  try {
    const first = await runner.run(RENAME, input, NOW);
    if (!first.ok || first.cancel || (first.payload as { type?: string }).type !== 'bench')
      throw new Error(`the rename did not rename: ${JSON.stringify(first)}`);
    await Promise.all(Array.from({ length: THREADS }, () => pool.run(RENAME, input, NOW)));
    baseline(input, options.count); // warm: the first loop also pays V8's compiling
    for (let run = 0; run < options.runs; run++) {
      const baselineUsPerRun = baseline(input, options.count);
      const cpuStart = process.cpuUsage();
      const loopStart = process.threadCpuUsage();
      const transformUsPerRun = await sequential(runner, RENAME, input, options.count);
      const cpu = process.cpuUsage(cpuStart);
      const loop = process.threadCpuUsage(loopStart);
      const threadedRunsPerSecond = await threaded(pool, input, options.count);
      const largestCodeUsPerRun = await sequential(runner, LARGEST, input, Math.max(1, Math.floor(options.count / 20)));
      samples.push({
        baselineUsPerRun,
        transformUsPerRun,
        cpuUsPerRun: (cpu.user + cpu.system) / options.count,
        eventLoopCpuUsPerRun: (loop.user + loop.system) / options.count,
        threadedRunsPerSecond,
        largestCodeUsPerRun,
      });
      log(`transform: run ${run + 1}: ${round(transformUsPerRun)} µs a run against ${round(baselineUsPerRun, 2)} µs`);
    }
  } finally {
    await runner.close();
    await pool.close();
  }
  const m = (pick: (s: (typeof samples)[number]) => number, digits = 1) => round(median(samples.map(pick)) ?? Number.NaN, digits);
  const figures: TransformFigures = {
    runs: options.runs,
    count: options.count,
    cpus: availableParallelism(),
    loadAverage,
    baselineUsPerRun: m((s) => s.baselineUsPerRun, 2),
    transformUsPerRun: m((s) => s.transformUsPerRun),
    ratio: m((s) => s.transformUsPerRun / s.baselineUsPerRun, 0),
    cpuUsPerRun: m((s) => s.cpuUsPerRun),
    eventLoopCpuUsPerRun: m((s) => s.eventLoopCpuUsPerRun),
    threadedRunsPerSecond: m((s) => s.threadedRunsPerSecond, 0),
    largestCodeUsPerRun: m((s) => s.largestCodeUsPerRun),
  };
  process.stdout.write(
    [
      `transform: a field of a 1 KB payload renamed, ${options.count} runs one at a time, median of ${options.runs}; ${figures.cpus} CPUs, load ${loadAverage}`,
      '| figure | value |',
      '| --- | --- |',
      `| baseline: the rename in Node, through JSON text | ${figures.baselineUsPerRun} µs |`,
      `| a run in the sandbox (wall, awaited) | ${figures.transformUsPerRun} µs |`,
      `| run ÷ baseline | ${figures.ratio} × |`,
      `| CPU a run: all threads / the event loop's | ${figures.cpuUsPerRun} / ${figures.eventLoopCpuUsPerRun} µs |`,
      `| ${THREADS} threads, ${IN_FLIGHT} in flight | ${figures.threadedRunsPerSecond} runs/s |`,
      `| a run of 32,768 bytes of code | ${figures.largestCodeUsPerRun} µs |`,
      '',
    ].join('\n'),
  );
  if (outDir) writeFileSync(join(outDir, `transform-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(figures, null, 2));
  return true;
}

/** µs per rename done in Node, through JSON text both ways as the sandbox's data goes. */
function baseline(input: { payload: Record<string, unknown> }, count: number): number {
  let sink = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const webhook = JSON.parse(JSON.stringify(input)) as { payload: Record<string, unknown> };
    const { kind, ...rest } = webhook.payload;
    webhook.payload = { ...rest, type: kind };
    sink += JSON.stringify(webhook).length;
  }
  const us = ((performance.now() - started) * 1000) / count;
  if (sink === 0) throw new Error('unreachable: keeps the loop from being optimised away');
  return us;
}

/** µs per run, each awaited before the next. */
async function sequential(runner: TransformRunner, code: string, input: Parameters<TransformRunner['run']>[1], count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const result = await runner.run(code, input, NOW);
    if (!result.ok) throw new Error(`transform failed: ${result.error}`);
  }
  return ((performance.now() - started) * 1000) / count;
}

/** Runs a second with IN_FLIGHT runs waiting at once. */
async function threaded(pool: TransformRunner, input: Parameters<TransformRunner['run']>[1], count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next++ < count) await pool.run(RENAME, input, NOW);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return (count * 1000) / (performance.now() - started);
}

/** `code` followed by plausible helper functions and a last comment, `bytes` long in all (ASCII). */
function padTo(code: string, bytes: number): string {
  let text = `${code}\n`;
  for (let i = 0; ; i++) {
    const helper = `function helper${i}(items) { return items.filter((item) => item.n > ${i}).map((item) => ({ ...item, seen: ${i} })); }\n`;
    if (text.length + helper.length + 2 > bytes) break;
    text += helper;
  }
  return `${text}//${'-'.repeat(bytes - text.length - 2)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, count: { type: 'string', default: '5000' }, out: { type: 'string' } } });
  const ok = await runTransformBench({ runs: Number(values.runs), count: Number(values.count) }, values.out, (line) => process.stderr.write(`${line}\n`));
  process.exit(ok ? 0 : 1);
}
