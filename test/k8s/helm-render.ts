// What the Helm chart checks share: helm itself (run without blocking), `helm template` with
// `--set` values parsed into objects, and lookups into the rendered objects.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { expect } from 'vitest';
import { type Manifest, root } from './manifests.ts';

/** The chart's directory. */
export const chart = join(root, 'charts', 'wirehook');
/**
 * What a render without a cluster must say (helm template, Argo CD): the kube-dns ClusterIP
 * cannot be looked up there, and the chart refuses to leave it out silently.
 */
export const UNCONNECTED = 'networkPolicy.dns.lookupClusterIP=false';
/** The sets, with UNCONNECTED unless they say something of the lookup themselves. */
const unconnected = (sets: string[]) => (sets.some((s) => s.includes('lookupClusterIP')) ? sets : [...sets, UNCONNECTED]);

/** Values naming external MongoDB, Redis and NATS. */
export const EXTERNAL = [
  'mongodbUrl=mongodb://mongo.example.net:27017/wirehook?replicaSet=rs0',
  'redisUrl=redis://redis.example.net:6379',
  'natsUrl=nats://nats.example.net:4222',
];

/** Runs helm without blocking: the stand-in API server answers from this process. */
export function helm(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('helm', args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error('helm is needed for the chart checks (./dev test installs it into .tools/helm)'));
      } else resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `helm template` of the chart (release `wh` unless told) with `--set` (and `--set-string`) values; fails the test on a render error. */
export async function template(
  sets: string[],
  options: { kubeconfig?: string; namespace?: string; release?: string; setString?: string[] } = {},
): Promise<Manifest[]> {
  const args = [
    'template',
    options.release ?? 'wh',
    chart,
    '--namespace',
    options.namespace ?? 'wirehook',
    ...(options.kubeconfig ? sets : unconnected(sets)).flatMap((s) => ['--set', s]),
    ...(options.setString ?? []).flatMap((s) => ['--set-string', s]),
  ];
  if (options.kubeconfig) args.push('--dry-run=server', '--disable-openapi-validation');
  const res = await helm(args, options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {});
  expect(res.status, res.stderr).toBe(0);
  return parseAllDocuments(res.stdout)
    .map((d) => d.toJS() as Manifest)
    .filter(Boolean);
}

/** The objects of one kind. */
export const byKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);
/** The object of a kind and name; fails the test when there is none. */
export const named = (objects: Manifest[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};
/** The first container of a workload's pod template. */
export const container = (d: Manifest) => d['spec'].template.spec.containers[0];
/** A workload's first container's literal environment variables. */
export const envOf = (d: Manifest) => Object.fromEntries((container(d).env ?? []).map((e: { name: string; value?: string }) => [e.name, e.value]));

/** `helm template` that is expected to fail: its stderr (the test fails if it rendered). */
export async function refused(sets: string[], options: { kubeconfig?: string } = {}): Promise<string> {
  const args = ['template', 'wh', chart, '--namespace', 'wirehook', ...(options.kubeconfig ? sets : unconnected(sets)).flatMap((s) => ['--set', s])];
  if (options.kubeconfig) args.push('--dry-run=server', '--disable-openapi-validation');
  const res = await helm(args, options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {});
  expect(res.status, `rendered with ${sets.join(' ')}`).not.toBe(0);
  return res.stderr;
}

/** Every pod template of the rendered objects (Deployments, StatefulSets, Jobs) and bare Pods, by kind and name. */
export function podsOf(objects: Manifest[]): { name: string; metadata: Record<string, any>; spec: Record<string, any> }[] {
  return objects.flatMap((o) => {
    if (o.kind === 'Pod') return [{ name: `Pod ${o.metadata.name}`, metadata: o.metadata, spec: o['spec'] }];
    if (['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) return [{ name: `${o.kind} ${o.metadata.name}`, ...o['spec'].template }];
    return [];
  });
}
