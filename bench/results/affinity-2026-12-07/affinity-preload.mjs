// Experiment (sixty-third session): Wirehook's threads pinned to CPUs by name (taskset): AFFINITY="names:cpus;names:cpus",
// e.g. "store-writer,egress:1;MainThread:0" (names: /proc/self/task/*/comm; cpus: a taskset list). Unset: nothing pinned.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const spec = process.env.AFFINITY ?? (process.env.AFFINITY_CPUS ? `store-writer,egress:${process.env.AFFINITY_CPUS}` : '');
if (isMainThread && spec !== '') {
  const cpusOf = new Map();
  for (const part of spec.split(';')) {
    const [names, cpus] = part.split(':');
    for (const name of names.split(',')) cpusOf.set(name, cpus);
  }
  const done = new Set();
  const scan = () => {
    for (const tid of readdirSync('/proc/self/task')) {
      if (done.has(tid)) continue;
      let comm;
      try {
        comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      const cpus = cpusOf.get(comm);
      if (cpus === undefined) continue;
      done.add(tid);
      execFile('taskset', ['-p', '-c', cpus, tid], (err) => process.stderr.write(`affinity: ${comm} ${tid} ${cpus} ${err ?? 'ok'}\n`));
    }
  };
  setInterval(scan, 500).unref();
}
