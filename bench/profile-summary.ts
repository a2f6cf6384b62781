// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples fall, by function (self
// time), by file (self time), by package (self time, of the busy samples) and, for Wirehook's own
// functions, inclusive time, so a bench run's profile can be read without DevTools.
//   node bench/profile-summary.ts wirehook.cpuprofile [top=25]
import { readFileSync } from 'node:fs';
import { type CallFrame, frameName, ownCode, packageOf, shortUrl } from './code-origin.ts';

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.ts FILE.cpuprofile [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const byOwnCaller = new Map<string, number>();
const byPackage = new Map<string, number>();
/** The nearest frame of Wirehook's own code at or above `id`: library and runtime time is charged to its caller. */
const ownCaller = (id: number): string => {
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at)!.callFrame;
    if (ownCode(frame.url)) return frameName(frame);
  }
  const { functionName } = byId.get(id)!.callFrame;
  return functionName.startsWith('(') ? functionName : '(runtime and libraries, no Wirehook caller)';
};
// Inclusive time: each sample counts once for every distinct own frame on its stack, so a
// route's or a send's whole cost shows, whatever library it is spent in.
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at)!.callFrame;
    if (ownCode(frame.url)) seen.add(frameName(frame));
  }
  for (const key of seen) add(inclusive, key, us);
}
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  add(byFunction, frameName(frame), us);
  add(byFile, frame.url ? shortUrl(frame.url) : `(${frame.functionName})`, us);
  add(byOwnCaller, ownCaller(id), us);
  if (frame.functionName !== '(idle)') add(byPackage, packageOf(frame), us);
}
const busy = [...byPackage.values()].reduce((a, b) => a + b, 0);

process.stdout.on('error', () => process.exit(0)); // piped into head
const show = (title: string, map: Map<string, number>, of = total) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((us / of) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
  }
};
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
show('self time by function', byFunction);
show('self time by file', byFile);
show(`self time by package, of the busy (not idle) samples: ${(busy / 1e6).toFixed(1)} s`, byPackage, busy);
show('time by nearest Wirehook caller (library and native time charged to it)', byOwnCaller);
show('inclusive time of Wirehook functions (callees included)', inclusive);
