// The kustomize prod overlay (k8s/overlays/prod) against the chart rendered by the real Helm
// with the same settings (release and namespace `wirehook`, the overlay's relay pool and NAT
// node pool, its 3-replica stream, its DNS addresses, the Secret made outside): object by
// object, the same objects and, in each, the same NetworkPolicy rules, probes, preStop,
// security contexts, resources, ports, environment and scheduling. What differs by design is
// taken out first: names (the chart prefixes the release), the labels only Helm sets
// (app.kubernetes.io/instance, version, managed-by, helm.sh/chart; part-of, kustomize's), and
// annotations (Helm's checksums and hooks, Argo CD's on the kustomize Job). k8s/README.md says
// why the overlay is written by hand and checked here rather than generated from the chart.
import { describe, expect, it } from 'vitest';
import { template } from './helm-render.ts';
import { type Manifest, render } from './manifests.ts';

/** The chart values that say what k8s/overlays/prod says. */
const PROD_SETTINGS = [
  'secrets.existingSecret=wirehook-secrets',
  'relay.mode=nat',
  'relay.sourceIps={203.0.113.10,203.0.113.11}',
  'services.egressRelay.tolerations[0].key=wirehook.dev/static-egress',
  'services.egressRelay.tolerations[0].operator=Exists',
  'services.egressRelay.tolerations[0].effect=NoSchedule',
  'jetstream.replicas=3',
  'nats.prefix=wirehook',
  'networkPolicy.dns.addresses={169.254.20.10/32,10.96.0.10/32}',
];

/** Labels one side sets and the other cannot: Helm's release bookkeeping, kustomize's part-of. */
const BOOKKEEPING = ['app.kubernetes.io/instance', 'app.kubernetes.io/version', 'app.kubernetes.io/managed-by', 'helm.sh/chart', 'app.kubernetes.io/part-of'];

/** A copy without the bookkeeping labels anywhere (selectors, pod labels) and with the release prefix taken off names. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !BOOKKEEPING.includes(key))
        .map(([key, v]) => [key, normalize(v)]),
    );
  }
  if (typeof value === 'string')
    return value
      .replace(/^wirehook-(?=(gateway|message-intake|dispatcher|egress-relay|recovery|alerting|portal)\b)/, '')
      .replace(/dns:\/\/\/wirehook-/, 'dns:///');
  return value;
}

/**
 * What a pod template is compared by: everything but its annotations; each container's env by name
 * (its order means nothing here: no variable refers to another).
 */
function pod(template: { metadata: { labels: Record<string, string> }; spec: { containers: { env?: { name: string }[] }[] } }) {
  const containers = template.spec.containers.map((c) => ({ ...c, env: [...(c.env ?? [])].sort((a, b) => a.name.localeCompare(b.name)) }));
  return normalize({ labels: template.metadata.labels, spec: { ...template.spec, containers } });
}

/** The part of an object both renders must agree on. */
function projection(o: Manifest): unknown {
  const spec = o['spec'];
  switch (o.kind) {
    case 'Deployment':
      return { replicas: spec.replicas, selector: normalize(spec.selector), strategy: spec.strategy, pod: pod(spec.template) };
    case 'Job': {
      // The migrate Job: the chart also sets the stream variables in its env (its pre-upgrade
      // hook, which Argo CD runs as a PreSync, comes before the ConfigMap exists; kustomize's is a
      // Sync hook after it, base/kustomization.yaml); the rest is the same.
      const template = spec.template;
      const container = template.spec.containers[0];
      const env = container.env.filter((e: { name: string }) => !e.name.startsWith('NATS_'));
      return {
        backoffLimit: spec.backoffLimit,
        activeDeadlineSeconds: spec.activeDeadlineSeconds,
        pod: pod({ ...template, spec: { ...template.spec, containers: [{ ...container, env }] } }),
      };
    }
    case 'ConfigMap':
      return normalize(o['data']);
    case 'ServiceAccount':
      return { automountServiceAccountToken: o['automountServiceAccountToken'] };
    default:
      return normalize(spec);
  }
}

/** Kind and name with the release prefix taken off. */
const key = (o: Manifest) => `${o.kind} ${normalize(o.metadata.name)}`;

describe('k8s/overlays/prod is the chart rendered with the same settings', () => {
  const both = async () => {
    const chartObjects = (
      await template(PROD_SETTINGS, { release: 'wirehook', setString: ['services.egressRelay.nodeSelector.wirehook\\.dev/static-egress=true'] })
    ).filter(
      // Hooks that are not resources of kustomize's: the helm test pod (the migrate Job is one of both).
      (o) => !(o.metadata['annotations']?.['helm.sh/hook'] && o.kind !== 'Job'),
    );
    return { chart: new Map(chartObjects.map((o) => [key(o), o])), kustomize: new Map(render('prod').map((o) => [key(o), o])) };
  };

  it('the same objects', async () => {
    const { chart, kustomize } = await both();
    expect([...kustomize.keys()].sort()).toEqual([...chart.keys()].sort());
  });

  it('each the same: policies, probes, preStop, security contexts, resources, ports, environment, scheduling', async () => {
    const { chart, kustomize } = await both();
    expect(kustomize.size).toBeGreaterThan(25);
    for (const [name, object] of kustomize) {
      expect(projection(object), name).toEqual(projection(chart.get(name)!));
    }
  });

  it('what the issue found missing is on both sides: the senders’ egress policy without the metadata range, DNS to cluster DNS only, preStop', async () => {
    const { chart, kustomize } = await both();
    for (const side of [chart, kustomize]) {
      const senders = side.get('NetworkPolicy wirehook-internet-egress')!['spec'];
      expect(senders.podSelector.matchLabels['wirehook.dev/internet-egress']).toBe('true');
      for (const name of ['dispatcher', 'egress-relay', 'alerting']) {
        expect(side.get(`Deployment ${name}`)!['spec'].template.metadata.labels['wirehook.dev/internet-egress'], name).toBe('true');
      }
      const internet = senders.egress.find((r: { to?: { ipBlock?: { cidr: string } }[] }) => r.to?.some((t) => t.ipBlock?.cidr === '0.0.0.0/0'));
      expect(internet.to[0].ipBlock.except).toContain('169.254.0.0/16');
      for (const policy of ['wirehook-egress', 'wirehook-internet-egress']) {
        const rules = side.get(`NetworkPolicy ${policy}`)!['spec'].egress as { to?: unknown[]; ports?: { port: number }[] }[];
        // Port 53 only in a rule that names where: never to any address.
        for (const rule of rules.filter((r) => r.ports?.some((p) => p.port === 53))) {
          expect(rule.to?.length, policy).toBeGreaterThan(0);
          expect(rule.to).toContainEqual({ ipBlock: { cidr: '10.96.0.10/32' } });
        }
      }
      for (const [name, o] of side) {
        if (o.kind === 'Deployment') expect(o['spec'].template.spec.containers[0].lifecycle?.preStop?.exec?.command, name).toEqual(['sleep', '5']);
      }
    }
  });
});
