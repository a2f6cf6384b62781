// Summarises a heap sampling profile of `pnpm bench --alloc DIR` (bench/alloc/sampler.ts): the
// bytes the main thread allocated (or, for a profile taken with WIREHOOK_ALLOC_SURVIVORS=1, the
// bytes still live when it was written), per delivery when told how many it made, by function,
// by package and by the nearest Wirehook function above the allocation (library allocations
// charged to the code that called the library).
//   node bench/alloc/summary.ts FILE.heapprofile [deliveries] [top=25] [--survivors]
import { readFileSync } from 'node:fs';
import { type CallFrame, frameName, ownCode, packageOf } from '../code-origin.ts';

interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

const survivors = process.argv.includes('--survivors');
const [file, deliveriesArg, topArg] = process.argv.slice(2).filter((arg) => arg !== '--survivors');
if (!file) {
  process.stderr.write('usage: node bench/alloc/summary.ts FILE.heapprofile [deliveries] [top] [--survivors]\n');
  process.exit(2);
}
const deliveries = Number(deliveriesArg ?? 0);
const top = Number(topArg ?? 25);
const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: SamplingNode }).head;

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const byOwnCaller = new Map<string, number>();
const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes);
let total = 0;
const walk = (node: SamplingNode, caller: string) => {
  const own = ownCode(node.callFrame.url) ? frameName(node.callFrame) : caller;
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byFunction, frameName(node.callFrame), node.selfSize);
    add(byPackage, packageOf(node.callFrame), node.selfSize);
    add(byOwnCaller, own, node.selfSize);
  }
  for (const child of node.children) walk(child, own);
};
walk(head, '(no Wirehook caller)');

process.stdout.on('error', () => process.exit(0)); // piped into head
const unit = deliveries > 0 ? 'KB a delivery' : 'MB';
const amount = (bytes: number) => (deliveries > 0 ? bytes / deliveries / 1e3 : bytes / 1e6).toFixed(2).padStart(8);
const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title} (${unit})\n`);
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${amount(bytes)}  ${key}\n`);
};
process.stdout.write(
  `${file}: ${amount(total).trim()} ${unit} ${survivors ? 'still live (allocated and not yet collected)' : 'allocated'} on the main thread\n`,
);
show('by function', byFunction);
show('by package', byPackage);
show('by nearest Wirehook caller', byOwnCaller);
