// Reads probe.jsonl (gunzip the kept *.jsonl.gz first) and wirehook-*.jsonl (anatomy-preload.mjs) and names what each slow API probe overlapped.
import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2] ?? '.';
const read = (f) =>
  readFileSync(`${dir}/${f}`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const probe = read('probe.jsonl');
const spans = probe.filter((r) => r.t === 'span');
const files = readdirSync(dir).filter((f) => /^wirehook-\d+\.jsonl$/.test(f));
const wh = files.flatMap(read);
const waitFiles = readdirSync(dir).filter((f) => /-wait\.jsonl$/.test(f));
const waits = waitFiles.flatMap(read);
const gcs = wh.filter((r) => r.t === 'gc');
const served = wh.filter((r) => r.t === 'probe');
const inSpan = (at) => spans.find((s) => at >= s.from && at < s.to);
const N = Number(process.argv[3] ?? 12);
for (const kind of ['api', 'control']) {
  const list = probe.filter((r) => r.t === kind && r.ok && inSpan(r.at));
  list.sort((a, b) => b.ms - a.ms);
  const p99 = list[Math.floor(list.length * 0.01)];
  console.log(`\n${kind}: ${list.length} probes while delivering; p99 (the ${Math.floor(list.length * 0.01) + 1}th slowest) ${p99?.ms.toFixed(1)} ms`);
  for (const p of list.slice(0, N)) {
    const end = p.at + p.ms;
    const overlap = (s, e) => Math.max(0, Math.min(e, end) - Math.max(s, p.at));
    const g = gcs.filter((x) => overlap(x.at, x.at + x.ms) > 0);
    const gcMs = g.reduce((n, x) => n + overlap(x.at, x.at + x.ms), 0);
    const w = waits.filter((x) => x.at >= p.at && x.at - 1 <= end);
    const waitMs = w.reduce((n, x) => n + x.waitMs, 0);
    const s = kind === 'control' ? undefined : served.find((x) => x.arrived >= p.at && x.arrived <= end);
    const before = s ? s.arrived - p.at : NaN;
    const handler = s ? s.finished - s.arrived : NaN;
    console.log(
      `${p.ms.toFixed(1).padStart(6)} ms  ${inSpan(p.at).name.padEnd(8)} ${kind === 'control' ? '' : `before JS ${before.toFixed(1).padStart(5)}  in handler ${handler.toFixed(1).padStart(5)}  `}` +
        `gc ${gcMs.toFixed(1).padStart(5)} (${g.map((x) => `${x.kind} ${x.ms.toFixed(1)}`).join(', ')})  main thread's run-queue wait ${waitMs.toFixed(1)}`,
    );
  }
}
// Whole-span totals: the main thread's GC pauses and waits per second of delivering.
const spanMs = spans.reduce((n, s) => n + (s.to - s.from), 0);
const inside = (x) => inSpan(x.at);
const byKind = {};
for (const g of gcs.filter(inside)) (byKind[g.kind] ??= []).push(g.ms);
for (const [k, v] of Object.entries(byKind)) {
  v.sort((a, b) => a - b);
  console.log(
    `${k}: ${v.length} in ${(spanMs / 1000).toFixed(1)} s, ${v.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, median ${v[v.length >> 1].toFixed(1)}, max ${v.at(-1).toFixed(1)}`,
  );
}
const w = waits.filter(inside);
console.log(
  `main thread run-queue wait: ${w.reduce((n, x) => n + x.waitMs, 0).toFixed(0)} ms in ${(spanMs / 1000).toFixed(1)} s; ms-samples with > 2 ms: ${w.filter((x) => x.waitMs > 2).length}`,
);
