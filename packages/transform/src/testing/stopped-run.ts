// A process that starts one transformation, then stops itself (SIGSTOP) for a second while
// the run is in flight — a machine that gives the run's thread no CPU for a while — and
// prints the run's outcome as one line of JSON. Used by transform-limits.test.ts:
//   node stopped-run.ts <wallLimitMs>
import { spawn } from 'node:child_process';
import { TransformRunner } from '../transform-runner.ts';

const STOPPED_S = 1;
const input = { event_type: 'order.created', payload: {}, headers: {}, url: 'https://hooks.example.com/in' };
// About 11 ms of CPU on the development machine (25 on a loaded one): far inside the 400 ms budget.
const LOOP = 'function handler(w) { let n = 0; for (let i = 0; i < 200000; i++) n += i; return { payload: n } }';

const runner = new TransformRunner({ cpuBudgetMs: 400, watchdogGraceMs: 100, wallLimitMs: Number(process.argv[2]) });
await runner.run('function handler(w) { return w }', input, 0);
const started = performance.now();
const outcome = runner.run(LOOP, input, 0);
// The run is handed to its thread (and its watchdog set) a few promise steps later: let them happen.
await new Promise((resolve) => setImmediate(resolve));
// Another process wakes this one: nothing here runs while it is stopped.
spawn('/bin/sh', ['-c', `sleep ${STOPPED_S}; kill -CONT ${process.pid}`], { stdio: 'ignore' });
process.kill(process.pid, 'SIGSTOP');
const result = await outcome;
console.log(JSON.stringify({ result, ms: Math.round(performance.now() - started) }));
await runner.close();
