// The Helm chart rendered by the real Helm (./dev test fetches it): lint, every object valid
// against the Kubernetes schemas, and each blocker a platform engineer would hit checked on the
// rendered manifests — the generated key never replaced (lookups answered by a stand-in API
// server), rendering without a cluster refused without an existing Secret, no relay without a
// pool, PDBs that never block a drain, readiness, headless gRPC targets, DNS egress, the
// monitoring selectors, the KEDA option. An install into kind runs in .github/workflows/chart.yml.
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts';
import { type Manifest, root, SCHEMAS, validateObject } from './manifests.ts';

const chart = join(root, 'charts', 'wirehook');
const EXTERNAL = ['mongodbUrl=mongodb://mongo:27017/wirehook?replicaSet=rs0', 'redisUrl=redis://redis:6379', 'natsUrl=nats://nats:4222'];

/** Runs helm without blocking: the stand-in API server answers from this process. */
function helm(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('helm', args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error('helm is needed for the chart checks (./dev test installs it into .tools/helm)'));
      } else resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `helm template` of the chart with `--set` values; fails the test on a render error. */
async function template(sets: string[], options: { kubeconfig?: string; namespace?: string } = {}): Promise<Manifest[]> {
  const args = ['template', 'wh', chart, '--namespace', options.namespace ?? 'wirehook', ...sets.flatMap((s) => ['--set', s])];
  if (options.kubeconfig) args.push('--dry-run=server', '--disable-openapi-validation');
  const res = await helm(args, options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {});
  expect(res.status, res.stderr).toBe(0);
  return parseAllDocuments(res.stdout)
    .map((d) => d.toJS() as Manifest)
    .filter(Boolean);
}

const byKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: Manifest[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};
const container = (d: Manifest) => d['spec'].template.spec.containers[0];
const envOf = (d: Manifest) => Object.fromEntries((container(d).env ?? []).map((e: { name: string; value?: string }) => [e.name, e.value]));

let kube: FakeKubeApi;
beforeAll(async () => {
  kube = await startFakeKubeApi();
});
afterAll(() => kube?.close());

it('helm lint passes with external services, and with the bundled NATS', async () => {
  for (const sets of [EXTERNAL, [...EXTERNAL.slice(0, 2), 'nats.enabled=true']]) {
    const res = await helm(['lint', chart, '--strict', ...sets.flatMap((s) => ['--set', s])]);
    expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
  }
});

describe('the Secret holding the sealing key', () => {
  it('is generated once by an install: 32 random bytes, base64 (what WIREHOOK_SECRET_KEY takes)', async () => {
    const objects = await template(EXTERNAL, { kubeconfig: kube.kubeconfig });
    const secret = named(objects, 'Secret', 'wh-secrets');
    const key = Buffer.from(secret['data'].WIREHOOK_SECRET_KEY, 'base64').toString('utf8');
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(Buffer.from(secret['data'].INTERNAL_AUTH_TOKEN, 'base64').toString('utf8')).toMatch(/^[A-Za-z0-9]{48}$/);
    // A plain resource kept on uninstall: not a hook, which before-hook-creation would delete and remake.
    expect(secret.metadata).toMatchObject({ annotations: { 'helm.sh/resource-policy': 'keep' } });
    expect(secret.metadata['annotations']['helm.sh/hook']).toBeUndefined();
  });

  it('is never replaced: an upgrade keeps the key and the token it finds', async () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    kube.secrets.set('wirehook/wh-secrets', {
      WIREHOOK_SECRET_KEY: Buffer.from(key).toString('base64'),
      INTERNAL_AUTH_TOKEN: Buffer.from('t'.repeat(48)).toString('base64'),
    });
    try {
      for (let i = 0; i < 2; i++) {
        const secret = named(await template(EXTERNAL, { kubeconfig: kube.kubeconfig }), 'Secret', 'wh-secrets');
        expect(Buffer.from(secret['data'].WIREHOOK_SECRET_KEY, 'base64').toString('utf8')).toBe(key);
        expect(Buffer.from(secret['data'].INTERNAL_AUTH_TOKEN, 'base64').toString('utf8')).toBe('t'.repeat(48));
      }
    } finally {
      kube.secrets.clear();
    }
  });

  it('rendering without a cluster (helm template, Argo CD) is refused unless secrets.existingSecret is set', async () => {
    const res = await helm(['template', 'wh', chart, ...EXTERNAL.flatMap((s) => ['--set', s])]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('secrets.existingSecret is required when the chart is rendered without a cluster');
    const objects = await template(['secrets.existingSecret=wirehook-keys']);
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const d of byKind(objects, 'Deployment')) {
      expect(container(d).envFrom).toContainEqual({ secretRef: { name: 'wirehook-keys' } });
    }
  });
});

describe('rendered with its defaults (and an existing Secret)', () => {
  const objects = () => template(['secrets.existingSecret=wirehook-keys']);

  it('every object is valid Kubernetes; every service but the relay runs; the image is the appVersion', async () => {
    const all = await objects();
    for (const object of all) {
      if (object.apiVersion.includes('coreos.com') || object.apiVersion.startsWith('keda.sh')) continue;
      await expect(validateObject(object), `${object.kind} ${object.metadata.name}`).resolves.toBeUndefined();
    }
    const deployments = byKind(all, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(
      Object.keys(SCHEMAS)
        .filter((s) => s !== 'egress-relay')
        .map((s) => `wh-${s}`)
        .sort(),
    );
    const appVersion = /appVersion: "([^"]+)"/.exec(spawnSync('cat', [join(chart, 'Chart.yaml')], { encoding: 'utf8' }).stdout)![1];
    for (const d of deployments) expect(container(d).image).toBe(`ghcr.io/wirehook/wirehook:${appVersion}`);
  });

  it('PDBs never block a node drain: maxUnavailable 1 and unhealthy pods always evictable', async () => {
    const pdbs = byKind(await objects(), 'PodDisruptionBudget');
    expect(pdbs.map((p) => p.metadata.name).sort()).toEqual(['wh-alerting', 'wh-dispatcher', 'wh-gateway', 'wh-message-intake', 'wh-portal', 'wh-recovery']);
    for (const pdb of pdbs) expect(pdb['spec']).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
  });

  it('gRPC clients dial headless Services (every pod, round-robin), and those Services exist', async () => {
    const all = await objects();
    const config = named(all, 'ConfigMap', 'wh-config')['data'];
    for (const [variable, service, port] of [
      ['INTAKE_GRPC_ADDRESS', 'wh-message-intake-headless', 50051],
      ['RECOVERY_GRPC_ADDRESS', 'wh-recovery-headless', 50053],
    ] as const) {
      expect(config[variable]).toBe(`dns:///${service}:${port}`);
      expect(named(all, 'Service', service)['spec']).toMatchObject({ clusterIP: 'None', ports: [{ port }] });
    }
  });

  it('every service accepts the environment its Deployment gets (ConfigMap, Secret, its own variables)', async () => {
    const all = await objects();
    const config = named(all, 'ConfigMap', 'wh-config')['data'] as Record<string, string>;
    const secret = {
      WIREHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      INTERNAL_AUTH_TOKEN: 'x'.repeat(48),
      MONGODB_URL: 'mongodb://mongo:27017/wirehook?replicaSet=rs0',
      REDIS_URL: 'redis://redis:6379',
      NATS_URL: 'nats://nats:4222',
    };
    for (const d of byKind(all, 'Deployment')) {
      const name = d.metadata.name.replace(/^wh-/, '') as keyof typeof SCHEMAS;
      const env = { ...config, ...secret, ...envOf(d), WIREHOOK_INSTANCE: 'wh-x-1' };
      const parsed = SCHEMAS[name].safeParse(env);
      expect(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    }
  });

  it('egress: DNS to any address (kube-dns, NodeLocal DNS in either mode), the cluster, the named external services; the senders the internet but no private or metadata range', async () => {
    const policies = async (sets: string[]) => {
      const all = await template(['secrets.existingSecret=k', ...sets]);
      return { inside: named(all, 'NetworkPolicy', 'wh-egress')['spec'], senders: named(all, 'NetworkPolicy', 'wh-internet-egress')['spec'] };
    };
    const { inside, senders } = await policies([]);
    for (const spec of [inside, senders]) {
      expect(spec.egress[0]).toEqual({
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 53, protocol: 'TCP' },
        ],
      });
      expect(spec.egress[1]).toEqual({ to: [{ namespaceSelector: {} }] });
    }
    expect(inside.egress).toHaveLength(2);
    expect(inside.podSelector.matchLabels['wirehook.dev/internet-egress']).toBe('false');
    expect(senders.podSelector.matchLabels['wirehook.dev/internet-egress']).toBe('true');
    const internet = senders.egress[2].to;
    expect(internet[0].ipBlock).toMatchObject({ cidr: '0.0.0.0/0' });
    expect(internet[0].ipBlock.except).toEqual(expect.arrayContaining(['169.254.0.0/16', '10.0.0.0/8']));
    expect(internet[1].ipBlock.cidr).toBe('::/0');
    const managed = await policies(['networkPolicy.externalServices[0].cidr=10.20.0.0/16', 'networkPolicy.externalServices[0].ports={27017,6379}']);
    expect(managed.inside.egress[2]).toEqual({
      to: [{ ipBlock: { cidr: '10.20.0.0/16' } }],
      ports: [
        { port: 27017, protocol: 'TCP' },
        { port: 6379, protocol: 'TCP' },
      ],
    });
  });

  it('pods keep serving a few seconds after they are told to stop (preStop), so endpoint updates catch up', async () => {
    for (const d of byKind(await objects(), 'Deployment')) expect(container(d).lifecycle?.preStop?.exec?.command, d.metadata.name).toEqual(['sleep', '5']);
  });

  it('the migrate Job runs before upgrades only, with the chart’s labels, resources and a deadline', async () => {
    const job = named(await objects(), 'Job', 'wh-migrate');
    expect(job.metadata['annotations']['helm.sh/hook']).toBe('pre-upgrade');
    expect(job['spec'].activeDeadlineSeconds).toBe(900);
    const pod = job['spec'].template;
    expect(pod.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'wh', 'app.kubernetes.io/component': 'migrate' });
    expect(container(job).resources.limits.memory).toBe('512Mi');
    expect(container(job).args).toEqual(['migrate']);
    expect(envOf(job)['MIGRATE_WAIT_SECONDS']).toBe('300');
    // No ServiceAccount: under Argo CD the Job runs (PreSync) before the release's is made.
    expect(job['spec'].template.spec.serviceAccountName).toBeUndefined();
  });
});

describe('the bundled NATS', () => {
  it('renders a 3-server JetStream cluster whose stream gets 3 replicas; migrate leaves the stream to the services', async () => {
    const all = await template(['secrets.existingSecret=k', 'nats.enabled=true', 'nats.replicas=3']);
    const sts = named(all, 'StatefulSet', 'wh-nats');
    expect(sts['spec'].replicas).toBe(3);
    const conf = named(all, 'ConfigMap', 'wh-nats')['data']['nats.conf'] as string;
    for (const i of [0, 1, 2]) expect(conf).toContain(`nats://wh-nats-${i}.wh-nats-headless:6222`);
    const config = named(all, 'ConfigMap', 'wh-config')['data'];
    expect(config).toMatchObject({ NATS_URL: 'nats://wh-nats:4222', NATS_STREAM_REPLICAS: '3' });
    expect(container(named(all, 'Job', 'wh-migrate')).args).toEqual(['migrate', '--store-only']);
    expect(named(all, 'PodDisruptionBudget', 'wh-nats')['spec'].unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
    // Its own pull policy: a kind cluster with image.pullPolicy=Never still pulls NATS.
    expect(container(sts).imagePullPolicy).toBe('IfNotPresent');
    const refused = await helm(['template', 'wh', chart, '--set', 'secrets.existingSecret=k', '--set', 'nats.enabled=true', '--set', 'jetstream.replicas=3']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('cannot exceed the bundled NATS');
  });

  it('one server: the stream has 1 replica, and no NATS chart needs fetching (no dependencies)', async () => {
    const all = await template(['secrets.existingSecret=k', 'nats.enabled=true']);
    expect(named(all, 'ConfigMap', 'wh-config')['data'].NATS_STREAM_REPLICAS).toBe('1');
    expect(named(all, 'ConfigMap', 'wh-nats')['data']['nats.conf']).not.toContain('cluster {');
  });

  it('delivery.allowHosts reaches every process that checks endpoint URLs (gateway, dispatchers, relay) through the ConfigMap', async () => {
    const all = await template(['secrets.existingSecret=k', 'delivery.allowHosts=receiver.ci.svc']);
    expect(named(all, 'ConfigMap', 'wh-config')['data'].DELIVERY_ALLOW_HOSTS).toBe('receiver.ci.svc');
    expect(named(await template(['secrets.existingSecret=k']), 'ConfigMap', 'wh-config')['data'].DELIVERY_ALLOW_HOSTS).toBeUndefined();
  });
});

describe('the egress relay', () => {
  it('bind with hostNetwork: one pod per node (required anti-affinity), hostNetwork DNS, the pool in its environment', async () => {
    const all = await template([
      'secrets.existingSecret=k',
      'relay.sourceIps={203.0.113.7,203.0.113.8}',
      'relay.hostNetwork=true',
      'relay.nodeCidrs={10.0.5.0/24}',
    ]);
    // The dispatchers may reach the relay on its node's address (kept out of their internet rule otherwise).
    const senders = named(all, 'NetworkPolicy', 'wh-internet-egress')['spec'];
    expect(senders.egress.at(-1)).toEqual({ to: [{ ipBlock: { cidr: '10.0.5.0/24' } }], ports: [{ port: 50052, protocol: 'TCP' }] });
    const relay = named(all, 'Deployment', 'wh-egress-relay');
    const pod = relay['spec'].template.spec;
    expect(pod.hostNetwork).toBe(true);
    expect(pod.dnsPolicy).toBe('ClusterFirstWithHostNet');
    expect(pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).toBe('kubernetes.io/hostname');
    expect(envOf(relay)['RELAY_EGRESS_MODE']).toBe('bind');
    // On the node's network it listens on the node's cluster address, not on the public pool addresses.
    const hosts = Object.fromEntries(
      container(relay)
        .env.filter((e: { name: string }) => e.name.endsWith('_HOST'))
        .map((e: any) => [e.name, e.valueFrom?.fieldRef?.fieldPath]),
    );
    expect(hosts).toEqual({ GRPC_HOST: 'status.podIP', METRICS_HOST: 'status.podIP' });
    expect(named(all, 'ConfigMap', 'wh-config')['data'].RELAY_SOURCE_IPS).toBe('203.0.113.7,203.0.113.8');
    expect(named(all, 'PodDisruptionBudget', 'wh-egress-relay')['spec'].unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });

  it('nat: pinned to the NAT node pool by nodeSelector and tolerations, no host network', async () => {
    const all = await template([
      'secrets.existingSecret=k',
      'relay.mode=nat',
      'relay.sourceIps={198.51.100.20}',
      'services.egressRelay.nodeSelector.pool=static-egress',
      'services.egressRelay.tolerations[0].key=static-egress',
      'services.egressRelay.tolerations[0].operator=Exists',
    ]);
    const pod = named(all, 'Deployment', 'wh-egress-relay')['spec'].template.spec;
    expect(pod.hostNetwork).toBeUndefined();
    expect(pod.nodeSelector).toEqual({ pool: 'static-egress' });
    expect(pod.tolerations).toEqual([{ key: 'static-egress', operator: 'Exists' }]);
    expect(envOf(named(all, 'Deployment', 'wh-egress-relay'))['RELAY_EGRESS_MODE']).toBe('nat');
  });
});

describe('what platform teams set', () => {
  it('extra env, pod annotations and labels, affinity, tolerations, spread, priority, pull secrets and global are accepted and used', async () => {
    const all = await template([
      'secrets.existingSecret=k',
      'global.team=payments',
      'imagePullSecrets[0].name=regcred',
      'services.gateway.extraEnv[0].name=NODE_EXTRA_CA_CERTS',
      'services.gateway.extraEnv[0].value=/etc/ssl/corp/ca.pem',
      'services.gateway.extraVolumes[0].name=corp-ca',
      'services.gateway.extraVolumes[0].configMap.name=corp-ca',
      'services.gateway.extraVolumeMounts[0].name=corp-ca',
      'services.gateway.extraVolumeMounts[0].mountPath=/etc/ssl/corp',
      'services.gateway.podAnnotations.ad\\.datadoghq\\.com/tags=team:payments',
      'services.gateway.podLabels.team=payments',
      'services.gateway.priorityClassName=high',
      'services.gateway.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool',
      'services.gateway.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists',
      'services.gateway.topologySpreadConstraints[0].maxSkew=2',
      'services.gateway.topologySpreadConstraints[0].topologyKey=topology.kubernetes.io/zone',
      'services.gateway.topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule',
    ]);
    const gateway = named(all, 'Deployment', 'wh-gateway');
    const pod = gateway['spec'].template;
    expect(envOf(gateway)['NODE_EXTRA_CA_CERTS']).toBe('/etc/ssl/corp/ca.pem');
    expect(pod.spec.volumes).toEqual([{ name: 'corp-ca', configMap: { name: 'corp-ca' } }]);
    expect(container(gateway).volumeMounts).toEqual([{ name: 'corp-ca', mountPath: '/etc/ssl/corp' }]);
    await expect(validateObject(gateway)).resolves.toBeUndefined();
    expect(pod.metadata.annotations['ad.datadoghq.com/tags']).toBe('team:payments');
    expect(pod.metadata.annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    expect(pod.metadata.labels.team).toBe('payments');
    expect(pod.spec.priorityClassName).toBe('high');
    expect(pod.spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(pod.spec.affinity.nodeAffinity).toBeDefined();
    expect(pod.spec.topologySpreadConstraints[0].topologyKey).toBe('topology.kubernetes.io/zone');
  });

  it('a typo is still refused by the schema', async () => {
    const res = await helm(['template', 'wh', chart, '--set', 'secrets.existingSecret=k', '--set', 'services.gateway.replica=3']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/replica/);
  });

  it('ServiceMonitor and PrometheusRule carry the labels and namespace prometheus-operator selects on', async () => {
    const all = await template([
      'secrets.existingSecret=k',
      'metrics.serviceMonitor.enabled=true',
      'metrics.serviceMonitor.labels.release=kube-prometheus-stack',
      'metrics.serviceMonitor.namespace=monitoring',
      'metrics.prometheusRule.enabled=true',
      'metrics.prometheusRule.labels.release=kube-prometheus-stack',
    ]);
    const monitor = named(all, 'ServiceMonitor', 'wh');
    expect(monitor.metadata).toMatchObject({ namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' } });
    expect(monitor['spec'].namespaceSelector).toEqual({ matchNames: ['wirehook'] });
    const rule = named(all, 'PrometheusRule', 'wh');
    expect(rule.metadata).toMatchObject({ namespace: 'wirehook', labels: { release: 'kube-prometheus-stack' } });
    expect(rule['spec'].groups[0].rules.length).toBeGreaterThan(5);
  });

  it('KEDA scales the dispatchers on the oldest due delivery’s age; no HPA and no fixed replica count then', async () => {
    const all = await template(['secrets.existingSecret=k', 'services.dispatcher.autoscaling.keda.enabled=true']);
    expect(byKind(all, 'HorizontalPodAutoscaler')).toEqual([]);
    const scaled = named(all, 'ScaledObject', 'wh-dispatcher');
    expect(scaled['spec'].triggers[0].metadata.query).toContain('wirehook_deliveries_oldest_due_age_seconds');
    expect(scaled['spec'].minReplicaCount).toBe(2);
    expect(named(all, 'Deployment', 'wh-dispatcher')['spec'].replicas).toBeUndefined();
    // With the CPU autoscaler the Deployment has no replica count either (Helm would fight the HPA on upgrade).
    const hpa = await template(['secrets.existingSecret=k']);
    expect(named(hpa, 'Deployment', 'wh-dispatcher')['spec'].replicas).toBeUndefined();
    expect(named(hpa, 'HorizontalPodAutoscaler', 'wh-dispatcher')['spec'].minReplicas).toBe(2);
  });
});
