// The chart's names, selectors and images rendered by the real Helm: every name within
// Kubernetes' 63 characters and unique whatever the release is called; nameOverride and
// fullnameOverride; selectors that carry app.kubernetes.io/name, with an upgrade from chart 0.x
// (whose selectors lack it, and Kubernetes cannot change a selector) stopped before Helm
// touches anything; global.imageRegistry and digests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeKubeApi, startFakeKubeApi } from './fake-kube-api.ts';
import { byKind, container, EXTERNAL, named, podsOf, refused, template } from './helm-render.ts';
import { type Manifest, validateObject } from './manifests.ts';

let kube: FakeKubeApi;
beforeAll(async () => {
  kube = await startFakeKubeApi();
});
afterAll(() => kube?.close());

/** Everything on: every kind of object the chart makes. */
const EVERYTHING = [
  'secrets.existingSecret=k',
  'nats.enabled=true',
  'nats.replicas=3',
  'nats.metrics.enabled=true',
  'relay.mode=nat',
  'relay.sourceIps={198.51.100.20}',
  'ingress.enabled=true',
  'metrics.serviceMonitor.enabled=true',
  'metrics.prometheusRule.enabled=true',
  'metrics.grafanaDashboard.enabled=true',
];

describe('names', () => {
  it('a 43-character release: every name within 63 characters (a StatefulSet within 52, for its pods’ revision label), none the same', async () => {
    const release = 'payments-webhooks-production-eu-west-1-blue';
    expect(release).toHaveLength(43);
    const objects = await template(EVERYTHING, { release });
    const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const o of objects) {
      if (!o.apiVersion.includes('coreos.com')) await expect(validateObject(o), `${o.kind} ${o.metadata.name}`).resolves.toBeUndefined();
      expect(o.metadata.name.length, `${o.kind} ${o.metadata.name}`).toBeLessThanOrEqual(o.kind === 'StatefulSet' ? 52 : 63);
      expect(o.metadata.name, o.kind).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      // Every object found by the release's labels (kubectl -l app.kubernetes.io/instance=…, label-based tooling).
      expect(o.metadata.labels?.['app.kubernetes.io/instance'], `${o.kind} ${o.metadata.name}`).toBe(release);
    }
    // What the names are used as agree with the names: gRPC targets, the NATS URL, Service backends.
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name.endsWith('-config'))!['data'];
    const prefix = release.slice(0, 39).replace(/-+$/, '');
    expect(config.INTAKE_GRPC_ADDRESS).toBe(`dns:///${prefix}-message-intake-headless:50051`);
    named(objects, 'Service', `${prefix}-message-intake-headless`);
    expect(config.NATS_URL).toBe(`nats://${prefix}-nats:4222`);
    named(objects, 'Service', `${prefix}-nats`);
  });

  it('fullnameOverride replaces the release in every name; nameOverride is the app.kubernetes.io/name label and joins the release in names', async () => {
    const full = await template(['secrets.existingSecret=k', 'fullnameOverride=hooks']);
    expect(byKind(full, 'Deployment').map((d) => d.metadata.name)).toContain('hooks-gateway');
    expect(named(full, 'ConfigMap', 'hooks-config')['data'].RECOVERY_GRPC_ADDRESS).toBe('dns:///hooks-recovery-headless:50053');
    expect(container(named(full, 'Deployment', 'hooks-gateway')).envFrom).toContainEqual({ configMapRef: { name: 'hooks-config' } });
    const renamed = await template(['secrets.existingSecret=k', 'nameOverride=hooks', 'metrics.prometheusRule.enabled=true']);
    const gateway = named(renamed, 'Deployment', 'wh-hooks-gateway');
    expect(gateway['spec'].selector.matchLabels['app.kubernetes.io/name']).toBe('hooks');
    // The alert that tells Wirehook's dispatchers from another app's by that label follows it.
    const rules = JSON.stringify(named(renamed, 'PrometheusRule', 'wh-hooks')['spec']);
    expect(rules).toContain('app_kubernetes_io_name=\\"hooks\\"');
    expect(rules).not.toContain('app_kubernetes_io_name=\\"wirehook\\"');
  });
});

describe('selectors', () => {
  it('every Deployment, StatefulSet, Service, PDB and NetworkPolicy selects by app.kubernetes.io/name and instance, and matches its pods', async () => {
    const objects = await template(EVERYTHING);
    const selectors: [Manifest, Record<string, string>][] = [
      ...[...byKind(objects, 'Deployment'), ...byKind(objects, 'StatefulSet'), ...byKind(objects, 'PodDisruptionBudget')].map(
        (o) => [o, o['spec'].selector.matchLabels] as [Manifest, Record<string, string>],
      ),
      ...byKind(objects, 'Service').map((o) => [o, o['spec'].selector] as [Manifest, Record<string, string>]),
      ...byKind(objects, 'NetworkPolicy').map((o) => [o, o['spec'].podSelector.matchLabels] as [Manifest, Record<string, string>]),
    ];
    const pods = podsOf(objects);
    for (const [o, selector] of selectors) {
      expect(selector, `${o.kind} ${o.metadata.name}`).toMatchObject({ 'app.kubernetes.io/name': 'wirehook', 'app.kubernetes.io/instance': 'wh' });
      if (o.kind === 'NetworkPolicy') continue;
      const matched = pods.filter((p) => Object.entries(selector).every(([k, v]) => p.metadata['labels'][k] === v));
      expect(matched.length, `${o.kind} ${o.metadata.name} selects no pod`).toBeGreaterThan(0);
    }
  });

  it('an upgrade over chart 0.x’s Deployments (selectors without app.kubernetes.io/name) stops before anything changes and says what to do', async () => {
    kube.workloads.set('Deployment wirehook/wh-gateway', { 'app.kubernetes.io/instance': 'wh', 'app.kubernetes.io/component': 'gateway' });
    try {
      const message = await refused(EXTERNAL, { kubeconfig: kube.kubeconfig });
      expect(message).toContain('made by chart 0.x');
      expect(message).toContain('delete deployment,statefulset -l app.kubernetes.io/instance=wh --cascade=orphan');
      // Once they are gone (orphaning their pods), or from this chart on, the upgrade renders.
      kube.workloads.set('Deployment wirehook/wh-gateway', {
        'app.kubernetes.io/name': 'wirehook',
        'app.kubernetes.io/instance': 'wh',
        'app.kubernetes.io/component': 'gateway',
      });
      await template(EXTERNAL, { kubeconfig: kube.kubeconfig });
    } finally {
      kube.clear();
    }
  });
});

describe('images', () => {
  it('global.imageRegistry replaces the registry of every image (Docker Hub names under it as Docker Hub spells them); a digest pins one build', async () => {
    const images = (objects: Manifest[]) =>
      podsOf(objects)
        .flatMap((p) => p.spec['containers'].map((c: { image: string }) => c.image))
        .sort();
    const mirrored = images(await template([...EVERYTHING, 'global.imageRegistry=registry.corp.example/mirror', `image.digest=sha256:${'a'.repeat(64)}`]));
    expect(new Set(mirrored)).toEqual(
      new Set([
        `registry.corp.example/mirror/wirehook/wirehook:1.0.0@sha256:${'a'.repeat(64)}`,
        'registry.corp.example/mirror/library/nats:2.11.16-alpine@sha256:47169454fd238c3bd104f9947a6f84c1fb4713cd89ebf29da541ce53358fc298',
        'registry.corp.example/mirror/natsio/prometheus-nats-exporter:0.17.3',
      ]),
    );
    // A repository without a registry (a kind cluster's local image) is Docker Hub's under a mirror.
    const local = images(await template(['secrets.existingSecret=k', 'image.repository=wirehook', 'image.tag=ci', 'global.imageRegistry=mirror.example']));
    expect(new Set(local)).toEqual(new Set(['mirror.example/library/wirehook:ci']));
    expect(new Set(images(await template(['secrets.existingSecret=k', 'image.repository=wirehook', 'image.tag=ci'])))).toEqual(new Set(['wirehook:ci']));
  });
});
