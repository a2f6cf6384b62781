// A process that starts one transformation, then stops itself (SIGSTOP) for 3 s while the run is
// in flight — a machine that gives the run's thread no CPU for a while — and prints the run's
// outcome as one line of JSON. Used by transform-limits.test.ts:
//   node stopped-run.ts <wallLimitMs> finite|endless
// The budget is 2 s of CPU and the grace 100 ms, so the stop outlasts budget + grace of wall clock.
// `finite` needs ≈ 110 ms of CPU (250 on a loaded machine): it completes, however the threads are
// scheduled once continued. `endless` never completes within the budget: past the wall limit it is
// the watchdog's, and that cannot race the run's own answer.
import { spawn } from 'node:child_process';
import { TransformRunner } from '../transform-runner.ts';

const STOPPED_S = 3;
const input = { event_type: 'order.created', payload: {}, headers: {}, url: 'https://hooks.example.com/in' };
const CODE = {
  finite: 'function handler(w) { let n = 0; for (let i = 0; i < 2000000; i++) n += i; return { payload: n } }',
  endless: 'function handler(w) { for (;;) {} }',
};

const [wallLimitMs, kind] = process.argv.slice(2) as [string, keyof typeof CODE];
const runner = new TransformRunner({ cpuBudgetMs: 2_000, watchdogGraceMs: 100, wallLimitMs: Number(wallLimitMs) });
await runner.run('function handler(w) { return w }', input, 0);
const started = performance.now();
const outcome = runner.run(CODE[kind], input, 0);
// The run is handed to its thread (and its watchdog set) a few promise steps later: let them happen.
await new Promise((resolve) => setImmediate(resolve));
// Another process wakes this one: nothing here runs while it is stopped.
spawn('/bin/sh', ['-c', `sleep ${STOPPED_S}; kill -CONT ${process.pid}`], { stdio: 'ignore' });
process.kill(process.pid, 'SIGSTOP');
const result = await outcome;
console.log(JSON.stringify({ result, ms: Math.round(performance.now() - started) }));
await runner.close();
