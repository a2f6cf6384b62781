// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples fall, by function (self
// time), by file (self time), by package (self time, of the busy samples) and, for Wirehook's own
// functions, inclusive time, so a bench run's profile can be read without DevTools.
//   node bench/profile-summary.ts wirehook.cpuprofile [top=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/\.pnpm\/([^/]+)\/node_modules\//, '$1 ')
    .replace(/.*\/(packages|services)\//, '$1/');
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const byOwnCaller = new Map<string, number>();
const byPackage = new Map<string, number>();
/** Where a frame's code comes from, coarsely: an npm package, a Node module, a Wirehook package or service, or a native function. */
const packageOf = (functionName: string, url: string): string => {
  const npm = /node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(url);
  if (npm) return `npm ${npm[1]!.replace('+', '/')}`;
  if (url.startsWith('node:')) return `node ${url.replace(/^node:(internal\/)?/, '').replace(/\/.*$/, '')}`;
  const own = /\/(packages|services)\/([^/]+)\//.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  return url ? shortUrl(url) : functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
};
const ownCode = (url: string) => /\/(packages|services|bench)\//.test(url) && !url.includes('node_modules');
/** The nearest frame of Wirehook's own code at or above `id`: library and runtime time is charged to its caller. */
const ownCaller = (id: number): string => {
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
    if (ownCode(url)) return `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
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
    const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
    if (ownCode(url)) seen.add(`${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`);
  }
  for (const key of seen) add(inclusive, key, us);
}
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)';
  add(byFunction, `${functionName || '(anonymous)'} ${where}`, us);
  add(byFile, url ? shortUrl(url) : `(${functionName})`, us);
  add(byOwnCaller, ownCaller(id), us);
  if (functionName !== '(idle)') add(byPackage, packageOf(functionName, url), us);
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
