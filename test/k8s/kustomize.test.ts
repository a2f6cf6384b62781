// The kustomize manifests (k8s/): both overlays render with `kubectl kustomize`; every object
// validates against the Kubernetes API schemas (kubernetes-models, generated from the
// upstream OpenAPI; KEDA's ScaledObject, a CRD, checked for its shape); every service's zod
// config accepts the environment its Deployment gets (drift: a variable a service requires and
// the manifests forget fails here); and they keep the chart's shape: resources and the migrate
// Job's bounds equal to charts/wirehook/values.yaml, headless gRPC targets, no replica count
// fighting the autoscaler, PDBs that never block a drain, the senders' egress policy and preStop
// (the prod overlay is compared with the chart object by object in kustomize-parity.test.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { type Manifest, render, root, SCHEMAS, sharedEnvironment, validateObject } from './manifests.ts';

const values = parse(readFileSync(join(root, 'charts', 'wirehook', 'values.yaml'), 'utf8')) as Record<string, any>;
/** The chart's values key of each service. */
const VALUES_KEY: Record<keyof typeof SCHEMAS, string> = {
  gateway: 'gateway',
  'message-intake': 'messageIntake',
  dispatcher: 'dispatcher',
  'egress-relay': 'egressRelay',
  recovery: 'recovery',
  alerting: 'alerting',
  portal: 'portal',
};
const GRPC = {
  'message-intake': ['INTAKE_GRPC_ADDRESS', 50051],
  recovery: ['RECOVERY_GRPC_ADDRESS', 50053],
  'egress-relay': ['RELAY_GRPC_ADDRESS', 50052],
} as const;

const byKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: Manifest[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};
const podOf = (o: Manifest) => o['spec'].template.spec;
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** Every object valid: Kubernetes' own against its schema, a KEDA ScaledObject by its shape. */
async function expectValid(objects: Manifest[]): Promise<void> {
  for (const object of objects) {
    if (object.apiVersion.startsWith('keda.sh/')) {
      expect(object.apiVersion).toBe('keda.sh/v1alpha1');
      expect(object.kind).toBe('ScaledObject');
      named(objects, 'Deployment', object['spec'].scaleTargetRef.name);
      expect(object['spec'].minReplicaCount).toBeLessThanOrEqual(object['spec'].maxReplicaCount);
      expect(object['spec'].triggers.length).toBeGreaterThan(0);
      for (const t of object['spec'].triggers)
        expect(
          Object.values(t.metadata).every((v) => typeof v === 'string'),
          JSON.stringify(t),
        ).toBe(true);
      continue;
    }
    await expect(validateObject(object), `${object.kind} ${object.metadata.name}`).resolves.toBeUndefined();
  }
}

describe.each(['dev', 'prod'])('k8s/overlays/%s', (overlay) => {
  it('renders, and every object is valid Kubernetes', async () => {
    const objects = render(overlay);
    expect(
      byKind(objects, 'Deployment')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(Object.keys(SCHEMAS).sort());
    await expectValid(objects);
    for (const d of [...byKind(objects, 'Deployment'), ...byKind(objects, 'Job')]) {
      const pod = podOf(d);
      expect(pod.automountServiceAccountToken, d.metadata.name).toBe(false);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.containers[0].securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    }
    for (const d of byKind(objects, 'Deployment')) {
      // As the chart's probes.
      expect(podOf(d).containers[0].livenessProbe, d.metadata.name).toEqual({
        httpGet: { path: '/livez', port: 'metrics' },
        periodSeconds: 10,
        failureThreshold: 3,
      });
      expect(podOf(d).containers[0].readinessProbe, d.metadata.name).toEqual({
        httpGet: { path: '/readyz', port: 'metrics' },
        periodSeconds: 5,
        failureThreshold: 2,
      });
    }
  });

  it("each Deployment's resources are the chart's values.yaml (drift check)", () => {
    for (const d of byKind(render(overlay), 'Deployment')) {
      const key = VALUES_KEY[d.metadata.name as keyof typeof VALUES_KEY];
      expect(podOf(d).containers[0].resources, `${d.metadata.name} (services.${key}.resources)`).toEqual(values['services'][key].resources);
    }
  });

  it('gRPC clients dial dns:/// headless targets: Services without a cluster IP selecting the servers, on their gRPC port', () => {
    const objects = render(overlay);
    const config = named(objects, 'ConfigMap', 'wirehook-config')['data'];
    for (const [server, [variable, port]] of Object.entries(GRPC)) {
      expect(config[variable]).toBe(`dns:///${server}-headless:${port}`);
      const headless = named(objects, 'Service', `${server}-headless`);
      expect(headless['spec'].clusterIP).toBe('None');
      expect(headless['spec'].ports).toEqual([{ name: 'grpc', port, targetPort: 'grpc' }]);
      const deployment = named(objects, 'Deployment', server);
      expect(headless['spec'].selector).toEqual(deployment['spec'].selector.matchLabels);
      expect(podOf(deployment).containers[0].ports).toContainEqual({ name: 'grpc', containerPort: port });
    }
  });

  it('the migrate Job: runs migrate with the image of the services, bounded as the chart, a Sync hook for Argo CD', () => {
    const objects = render(overlay);
    const job = named(objects, 'Job', 'wirehook-migrate');
    expect(job.metadata['annotations']).toMatchObject({
      'argocd.argoproj.io/hook': 'Sync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
    });
    expect(job.metadata['labels']).toMatchObject({ 'app.kubernetes.io/name': 'wirehook', 'app.kubernetes.io/component': 'migrate' });
    expect(job['spec'].activeDeadlineSeconds).toBe(values['migrate'].activeDeadlineSeconds);
    const pod = podOf(job);
    expect(pod.restartPolicy).toBe('Never');
    // The egress policy's pods (no internet), which still reach the store, NATS and DNS.
    expect(job['spec'].template.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'wirehook', 'wirehook.dev/internet-egress': 'false' });
    const c = pod.containers[0];
    expect(c.args).toEqual(['migrate']);
    expect(c.image).toBe(podOf(named(objects, 'Deployment', 'gateway')).containers[0].image);
    expect(c.resources).toEqual(values['migrate'].resources);
    expect(c.env).toContainEqual({ name: 'MIGRATE_WAIT_SECONDS', value: String(values['migrate'].waitSeconds) });
    expect(c.envFrom).toEqual([{ configMapRef: { name: 'wirehook-config', optional: true } }, { secretRef: { name: 'wirehook-secrets' } }]);
  });

  it('egress without the internet still reaches DNS: the kube-dns pods and the NodeLocal DNS address, port 53 UDP and TCP', () => {
    const policy = named(render(overlay), 'NetworkPolicy', 'wirehook-egress');
    const dns = policy['spec'].egress.find((r: { ports?: { port: number }[] }) => r.ports?.some((p) => p.port === 53));
    expect(dns.ports).toEqual([
      { port: 53, protocol: 'UDP' },
      { port: 53, protocol: 'TCP' },
    ]);
    expect(dns.to).toContainEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    });
    expect(dns.to).toContainEqual({ ipBlock: { cidr: '169.254.20.10/32' } });
    expect(policy['spec'].egress).toContainEqual({ to: [{ namespaceSelector: {} }] });
  });

  it('the senders (dispatcher, relay, alerting) reach the internet, not the metadata or private ranges; a pod serves on 5 s after told to stop', async () => {
    const objects = render(overlay);
    const senders = named(objects, 'NetworkPolicy', 'wirehook-internet-egress')['spec'];
    const selected = byKind(objects, 'Deployment')
      .filter((d) => matches(senders.podSelector.matchLabels, d['spec'].template.metadata.labels))
      .map((d) => d.metadata.name)
      .sort();
    expect(selected).toEqual(['alerting', 'dispatcher', 'egress-relay']);
    const internet = senders.egress.find((r: { to?: { ipBlock?: { cidr: string } }[] }) => r.to?.some((t) => t.ipBlock?.cidr === '0.0.0.0/0'));
    expect(internet.to[0].ipBlock.except).toEqual(expect.arrayContaining(['169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']));
    for (const d of byKind(objects, 'Deployment'))
      expect(podOf(d).containers[0].lifecycle, d.metadata.name).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
  });

  it('a PDB for exactly the services with two replicas or more, each one pod at a time and never blocking a drain', () => {
    const objects = render(overlay);
    const hpas = byKind(objects, 'HorizontalPodAutoscaler');
    const minimum = (d: Manifest) => hpas.find((h) => h['spec'].scaleTargetRef.name === d.metadata.name)?.['spec'].minReplicas ?? d['spec'].replicas ?? 1;
    const pdbs = byKind(objects, 'PodDisruptionBudget');
    for (const pdb of pdbs) {
      expect(pdb['spec'], pdb.metadata.name).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
      expect(pdb['spec'].minAvailable).toBeUndefined();
    }
    for (const d of byKind(objects, 'Deployment')) {
      const covering = pdbs.filter((p) => matches(p['spec'].selector.matchLabels, d['spec'].template.metadata.labels));
      expect(covering.length, `PDBs of ${d.metadata.name} (at least ${minimum(d)} replicas)`).toBe(minimum(d) >= 2 ? 1 : 0);
    }
  });
});

/** The overlay's kustomization with one more component in its list (made when it has none). */
const withComponent = (kustomization: string, name: string) =>
  /^components:\n/m.test(kustomization)
    ? kustomization.replace(/^components:\n/m, `components:\n  - ../../components/${name}\n`)
    : `${kustomization}components:\n  - ../../components/${name}\n`;

describe('k8s/overlays/prod', () => {
  it('no single point of failure: two replicas or more of every service but the autoscaled dispatcher', () => {
    const objects = render('prod');
    for (const name of ['gateway', 'message-intake', 'egress-relay', 'recovery', 'alerting', 'portal']) {
      expect(named(objects, 'Deployment', name)['spec'].replicas, name).toBeGreaterThanOrEqual(2);
    }
  });

  it("the dispatcher's replicas are the autoscaler's (the Deployment sets none), as the chart's", () => {
    const objects = render('prod');
    expect(named(objects, 'Deployment', 'dispatcher')['spec']).not.toHaveProperty('replicas');
    const auto = values['services'].dispatcher.autoscaling;
    const hpa = named(objects, 'HorizontalPodAutoscaler', 'dispatcher');
    expect(hpa['spec']).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'dispatcher' },
      minReplicas: auto.minReplicas,
      maxReplicas: auto.maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: auto.targetCPUUtilizationPercentage } } }],
    });
  });

  it('the relay on the static-egress node pool behind its NAT gateway; a 3-replica stream', () => {
    const objects = render('prod');
    const relay = podOf(named(objects, 'Deployment', 'egress-relay'));
    expect(relay.nodeSelector).toEqual({ 'wirehook.dev/static-egress': 'true' });
    expect(relay.tolerations).toEqual([{ key: 'wirehook.dev/static-egress', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(relay.containers[0].env.filter((e: { name: string }) => e.name === 'RELAY_EGRESS_MODE')).toEqual([{ name: 'RELAY_EGRESS_MODE', value: 'nat' }]);
    expect(named(objects, 'ConfigMap', 'wirehook-config')['data']).toMatchObject({ NATS_STREAM_REPLICAS: '3', NATS_STREAM_STORAGE: 'file' });
  });

  it('Argo CD applies the settings, Secret and policies (wave -1), then runs the migrate Job (wave 0), then rolls the Deployments (wave 1)', () => {
    for (const overlay of ['dev', 'prod']) {
      const objects = render(overlay);
      const wave = (o: Manifest) => o.metadata['annotations']?.['argocd.argoproj.io/sync-wave'];
      for (const o of objects.filter((o) => ['ConfigMap', 'Secret', 'ServiceAccount', 'NetworkPolicy', 'Service'].includes(o.kind))) {
        expect(wave(o), `${overlay} ${o.kind} ${o.metadata.name}`).toBe('-1');
      }
      for (const d of byKind(objects, 'Deployment')) expect(wave(d), `${overlay} ${d.metadata.name}`).toBe('1');
      const job = named(objects, 'Job', 'wirehook-migrate');
      expect(job.metadata['annotations']).toMatchObject({ 'argocd.argoproj.io/hook': 'Sync', 'argocd.argoproj.io/sync-wave': '0' });
      // It reads wirehook-config as the overlay leaves it (it exists by then): no value of it copied into the Job.
      expect(podOf(job).containers[0].env.map((e: { name: string }) => e.name)).toEqual(['MIGRATE_WAIT_SECONDS', 'LOG_FORMAT']);
    }
  });

  it('with the nats-creds component: every service and the migrate Job read the .creds file of wirehook-nats (NATS_CREDS_FILE)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-k8s-'));
    try {
      cpSync(join(root, 'k8s'), join(dir, 'k8s'), { recursive: true });
      const kustomization = join(dir, 'k8s', 'overlays', 'prod', 'kustomization.yaml');
      writeFileSync(kustomization, withComponent(readFileSync(kustomization, 'utf8'), 'nats-creds'));
      const res = spawnSync('kubectl', ['kustomize', join(dir, 'k8s', 'overlays', 'prod')], { encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      const objects = parseAllDocuments(res.stdout).map((d) => d.toJS() as Manifest);
      await expectValid(objects);
      const workloads = [...byKind(objects, 'Deployment'), ...byKind(objects, 'Job')];
      expect(workloads).toHaveLength(8);
      for (const w of workloads) {
        const pod = podOf(w);
        expect(pod.volumes, w.metadata.name).toEqual([
          { name: 'nats-client', secret: { secretName: 'wirehook-nats', items: [{ key: 'user.creds', path: 'user.creds' }], defaultMode: 0o440 } },
        ]);
        expect(pod.containers[0].volumeMounts, w.metadata.name).toEqual([{ name: 'nats-client', mountPath: '/etc/wirehook/nats', readOnly: true }]);
        expect(pod.containers[0].env, w.metadata.name).toContainEqual({ name: 'NATS_CREDS_FILE', value: '/etc/wirehook/nats/user.creds' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the keda component: a ScaledObject on the backlog in place of the HPA, as the chart', async () => {
    // What k8s/README.md says to do: add the component to the prod overlay.
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-k8s-'));
    try {
      cpSync(join(root, 'k8s'), join(dir, 'k8s'), { recursive: true });
      const kustomization = join(dir, 'k8s', 'overlays', 'prod', 'kustomization.yaml');
      writeFileSync(kustomization, withComponent(readFileSync(kustomization, 'utf8'), 'keda'));
      const res = spawnSync('kubectl', ['kustomize', join(dir, 'k8s', 'overlays', 'prod')], { encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      const objects = parseAllDocuments(res.stdout).map((d) => d.toJS() as Manifest);
      await expectValid(objects);
      expect(byKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
      const scaled = named(objects, 'ScaledObject', 'dispatcher');
      const auto = values['services'].dispatcher.autoscaling;
      expect(scaled['spec']).toMatchObject({ scaleTargetRef: { name: 'dispatcher' }, minReplicaCount: auto.minReplicas, maxReplicaCount: auto.maxReplicas });
      const [prometheus, cpu] = scaled['spec'].triggers;
      // The query's namespace is the one the overlay installs into (kustomize does not rewrite it).
      expect(prometheus.metadata.query).toBe(
        `max(wirehook_deliveries_oldest_due_age_seconds{namespace="${scaled.metadata['namespace']}",container="dispatcher"} >= 0)`,
      );
      // The backlog unknown (every dispatcher's gauge NaN) is an error that keeps the replicas, not a 0 that scales them down.
      expect(prometheus.metadata.ignoreNullValues).toBe('false');
      expect(prometheus.metadata.threshold).toBe(String(auto.keda.oldestDueAgeSeconds));
      expect(prometheus.metadata.serverAddress).toBe(auto.keda.prometheusServerAddress);
      expect(cpu).toEqual({ type: 'cpu', metricType: 'Utilization', metadata: { value: String(auto.targetCPUUtilizationPercentage) } });
      expect(named(objects, 'Deployment', 'dispatcher')['spec']).not.toHaveProperty('replicas');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('every service accepts the environment the dev overlay gives it (no required variable forgotten)', () => {
  const objects = render('dev');
  const shared = sharedEnvironment(objects);
  for (const d of byKind(objects, 'Deployment')) {
    const container = podOf(d).containers[0];
    const own = Object.fromEntries(
      (container.env ?? []).filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const env = { ...shared, ...own };
    const schema = SCHEMAS[d.metadata.name as keyof typeof SCHEMAS];
    const parsed = schema.safeParse(env);
    expect(parsed.success, `${d.metadata.name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
});
