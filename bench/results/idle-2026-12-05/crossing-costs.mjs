import { readFileSync } from 'node:fs';
import { deserialize } from 'node:v8';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
const posts = deserialize(readFileSync(process.argv[2]));
const want = process.argv[3];
const { port1, port2 } = new MessageChannel();
function time(label, s) {
  const N = 2000;
  let best = [1e9, 1e9];
  for (let r = 0; r < 5; r++) {
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) port1.postMessage(s);
    const a = Number(process.hrtime.bigint() - t0) / N / 1000;
    t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) receiveMessageOnPort(port2);
    const b = Number(process.hrtime.bigint() - t0) / N / 1000;
    best = [Math.min(best[0], a), Math.min(best[1], b)];
  }
  console.log(label.padEnd(24), 'post', best[0].toFixed(2), 'receive', best[1].toFixed(2));
}
for (const p of posts)
  for (const it of p) {
    const k = it.repo ? `${it.repo}.${it.method}` : it.value && typeof it.value === 'object' ? Object.keys(it.value)[0] : 'other';
    if (k === want) {
      time('whole', it);
      const copy = JSON.parse(JSON.stringify(it));
      time('whole (json copy)', copy);
      for (const [i, a] of (it.args ?? [it.value]).entries()) {
        time(`arg${i}`, a);
        if (a && typeof a === 'object') for (const [k, v] of Object.entries(a)) time(`  ${k}`, v);
      }
      time('string 1KB ascii', 'x'.repeat(1000));
      time('number', 5);
      time('[]', []);
      process.exit(0);
    }
  }
