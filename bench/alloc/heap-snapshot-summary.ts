// What a V8 heap snapshot holds, by kind: `node bench/alloc/heap-snapshot-summary.ts FILE [top=40]`.
// Self sizes summed by node type, objects and closures by constructor name, then the largest
// strings grouped by their first characters (long runs of letters and digits, ids, folded), so
// a snapshot taken under load (`--node-args=--heapsnapshot-signal=SIGUSR2`, then SIGUSR2 to the
// Wirehook process; the file lands in its working directory) can be read without DevTools.
// A snapshot collects garbage first: it shows what is live, not what a scavenge copied.
// The file is read as bytes (heap-snapshot-reader.ts): one past 512 MB is no string V8 can hold.
import { readHeapSnapshot, readWholeFile } from './heap-snapshot-reader.ts';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/alloc/heap-snapshot-summary.ts FILE.heapsnapshot [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const { snapshot, nodes, strings } = readHeapSnapshot(readWholeFile(file));
const fields = snapshot.meta.node_fields;
const types = snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [number, number, number];

const byKind = new Map<string, { count: number; bytes: number }>();
const byString = new Map<string, { count: number; bytes: number }>();
const add = (map: typeof byKind, key: string, bytes: number) => {
  const entry = map.get(key) ?? { count: 0, bytes: 0 };
  entry.count++;
  entry.bytes += bytes;
  map.set(key, entry);
};
let total = 0;
for (let at = 0; at < nodes.length; at += fields.length) {
  const type = types[nodes[at + typeAt]!]!;
  const name = strings[nodes[at + nameAt]!]!;
  const bytes = nodes[at + sizeAt]!;
  total += bytes;
  add(byKind, type === 'object' || type === 'closure' ? `${type} ${name}` : type, bytes);
  if (type.endsWith('string') && bytes >= 200) add(byString, `${type}: ${JSON.stringify(name.slice(0, 60).replace(/[0-9A-Za-z]{20,}/g, '…'))}`, bytes);
}

const show = (title: string, map: typeof byKind) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, { count, bytes }] of [...map].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    process.stdout.write(`${(bytes / 1e3).toFixed(0).padStart(8)} KB ${String(count).padStart(8)}  ${key}\n`);
  }
};
process.stdout.on('error', () => process.exit(0)); // piped into head
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} MB live in ${nodes.length / fields.length} nodes\n`);
show('self size by kind (objects and closures by constructor)', byKind);
show('strings of 200 bytes or more, by their start', byString);
