// The Helm chart rendered by the real Helm with its defaults (and an existing Secret): every
// object valid against the Kubernetes schemas, and each blocker a platform engineer would hit
// checked on the rendered manifests — PDBs that never block a drain, headless gRPC targets, each
// service's environment, DNS egress to the cluster's DNS only, preStop, the migrate Job.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byKind, chart, container, envOf, named, refused, template } from './helm-render.ts';
import { SCHEMAS, validateObject } from './manifests.ts';

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
      MONGODB_URL: 'mongodb://mongo.example.net:27017/wirehook?replicaSet=rs0',
      REDIS_URL: 'redis://redis.example.net:6379',
      NATS_URL: 'nats://nats.example.net:4222',
    };
    for (const d of byKind(all, 'Deployment')) {
      const name = d.metadata.name.replace(/^wh-/, '') as keyof typeof SCHEMAS;
      const env = { ...config, ...secret, ...envOf(d), WIREHOOK_INSTANCE: 'wh-x-1' };
      const parsed = SCHEMAS[name].safeParse(env);
      expect(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    }
  });

  it('egress: DNS only to the cluster’s (pods, NodeLocal DNS’s address); the cluster; named external services; senders: internet, not private', async () => {
    const policies = async (sets: string[]) => {
      const all = await template(['secrets.existingSecret=k', ...sets]);
      return { inside: named(all, 'NetworkPolicy', 'wh-egress')['spec'], senders: named(all, 'NetworkPolicy', 'wh-internet-egress')['spec'] };
    };
    const { inside, senders } = await policies([]);
    for (const spec of [inside, senders]) {
      expect(spec.egress[0]).toEqual({
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
            podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          },
          { ipBlock: { cidr: '169.254.20.10/32' } },
        ],
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 53, protocol: 'TCP' },
        ],
      });
      // Port 53 is open in that one rule only: nowhere to any address.
      expect(spec.egress.filter((r: { ports?: { port: number }[] }) => r.ports?.some((p) => p.port === 53))).toHaveLength(1);
    }
    // In the cluster: every pod for the pods that never send to customers; for those that do,
    // the release's own pods only (networkPolicy.clusterServices adds others, each on its ports).
    expect(inside.egress[1]).toEqual({ to: [{ namespaceSelector: {} }] });
    expect(inside.egress).toHaveLength(2);
    expect(senders.egress[1]).toEqual({ to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'wirehook', 'app.kubernetes.io/instance': 'wh' } } }] });
    expect(JSON.stringify(senders.egress)).not.toContain('"namespaceSelector":{}');
    expect(inside.podSelector.matchLabels['wirehook.dev/internet-egress']).toBe('false');
    expect(senders.podSelector.matchLabels['wirehook.dev/internet-egress']).toBe('true');
    const internet = senders.egress[2].to;
    expect(internet[0].ipBlock).toMatchObject({ cidr: '0.0.0.0/0' });
    expect(internet[0].ipBlock.except).toEqual(expect.arrayContaining(['169.254.0.0/16', '10.0.0.0/8']));
    expect(internet[1].ipBlock.cidr).toBe('::/0');
    const managed = await policies(['networkPolicy.externalServices[0].cidr=10.20.0.0/16', 'networkPolicy.externalServices[0].ports={27017,6379}']);
    expect(managed.senders.egress[2]).toEqual(managed.inside.egress[2]);
    expect(managed.inside.egress[2]).toEqual({
      to: [{ ipBlock: { cidr: '10.20.0.0/16' } }],
      ports: [
        { port: 27017, protocol: 'TCP' },
        { port: 6379, protocol: 'TCP' },
      ],
    });
    const inCluster = await policies([
      'networkPolicy.clusterServices[0].namespace=databases',
      'networkPolicy.clusterServices[0].podLabels.app=mongo',
      'networkPolicy.clusterServices[0].ports={27017}',
      'networkPolicy.clusterServices[1].ports={4317,4318}',
    ]);
    expect(inCluster.senders.egress.slice(2, 4)).toEqual([
      {
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'databases' } }, podSelector: { matchLabels: { app: 'mongo' } } }],
        ports: [{ port: 27017, protocol: 'TCP' }],
      },
      {
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'wirehook' } }, podSelector: {} }],
        ports: [
          { port: 4317, protocol: 'TCP' },
          { port: 4318, protocol: 'TCP' },
        ],
      },
    ]);
    expect(inCluster.inside.egress).toHaveLength(2); // the other pods reach every pod already
    // A URL naming a Service of the cluster while nothing is listed would be cut off the moment the policy applies: refused.
    for (const url of ['nats://nats:4222', 'nats://nats.messaging.svc:4222', 'tls://nats.messaging.svc.cluster.local:4222']) {
      expect(await refused(['secrets.existingSecret=k', `natsUrl=${url}`]), url).toMatch(
        /^Error: .*natsUrl names nats[\w.]*, a Service of the cluster: .*networkPolicy\.clusterServices/m,
      );
    }
    // Listed (or the policies off), or a name outside the cluster: rendered.
    await template(['secrets.existingSecret=k', 'natsUrl=nats://nats:4222', 'networkPolicy.clusterServices[0].ports={4222}']);
    await template(['secrets.existingSecret=k', 'natsUrl=nats://nats:4222', 'networkPolicy.enabled=false']);
    await template(['secrets.existingSecret=k', 'natsUrl=tls://connect.ngs.global']);
    // Another cluster's DNS: OpenShift's pods, its Service's address listed.
    const openshift = await policies([
      'networkPolicy.dns.namespace=openshift-dns',
      'networkPolicy.dns.podLabels.dns\\.operator\\.openshift\\.io/daemonset-dns=default',
      'networkPolicy.dns.podLabels.k8s-app=null',
      'networkPolicy.dns.addresses={172.30.0.10/32}',
    ]);
    expect(openshift.inside.egress[0].to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } },
        podSelector: { matchLabels: { 'dns.operator.openshift.io/daemonset-dns': 'default' } },
      },
      { ipBlock: { cidr: '172.30.0.10/32' } },
    ]);
  });

  it('pods keep serving a few seconds after they are told to stop (preStop), so endpoint updates catch up', async () => {
    for (const d of byKind(await objects(), 'Deployment')) expect(container(d).lifecycle?.preStop?.exec?.command, d.metadata.name).toEqual(['sleep', '5']);
  });

  it('the pods that send webhooks get the time their stop takes: preStop, the longest relay call, 5 s more, 5 to spare', async () => {
    const relayOn = ['secrets.existingSecret=wirehook-keys', 'relay.sourceIps={198.51.100.20}', 'relay.mode=nat'];
    const grace = (all: Awaited<ReturnType<typeof objects>>) =>
      Object.fromEntries(byKind(all, 'Deployment').map((d) => [d.metadata.name, d['spec'].template.spec.terminationGracePeriodSeconds]));
    // DELIVERY_TIMEOUT_MS 15 s unless set: 5 + (30 + 5 + 5) + 5 = 50 (core's senderStopMs); the rest keep Kubernetes' 30 s (their stop: 20 s).
    expect(grace(await template(relayOn))).toEqual({
      'wh-alerting': undefined,
      'wh-dispatcher': 50,
      'wh-egress-relay': 50,
      'wh-gateway': undefined,
      'wh-message-intake': undefined,
      'wh-portal': undefined,
      'wh-recovery': undefined,
    });
    // Raised to 60 s in a service's extraEnv: 5 + (120 + 5) + 5 + 5 = 140 for that service alone.
    const raised = await template([...relayOn, 'services.dispatcher.extraEnv[0].name=DELIVERY_TIMEOUT_MS'], {
      setString: ['services.dispatcher.extraEnv[0].value=60000'],
    });
    expect(grace(raised)).toMatchObject({ 'wh-dispatcher': 140, 'wh-egress-relay': 50 });
    // 1 s: the process's stop is never under 20 s, the pod's grace never under Kubernetes' 30.
    const short = await template([...relayOn, 'services.egressRelay.extraEnv[0].name=DELIVERY_TIMEOUT_MS'], {
      setString: ['services.egressRelay.extraEnv[0].value=1000'],
    });
    expect(grace(short)).toMatchObject({ 'wh-dispatcher': 50, 'wh-egress-relay': 30 });
    // A value the chart cannot read as milliseconds is refused, naming it (zod would take "1.5e4").
    expect(await refused([...relayOn, 'services.dispatcher.extraEnv[0].name=DELIVERY_TIMEOUT_MS', 'services.dispatcher.extraEnv[0].value=1.5e4'])).toContain(
      'services.dispatcher.extraEnv: DELIVERY_TIMEOUT_MS must be whole milliseconds (digits only), not "1.5e4"',
    );
    // A number (--set's 30000, YAML's unquoted 30000) is refused by the chart's schema: a Pod's env value is a string, and the
    // API server would refuse the Deployment at apply.
    expect(await refused([...relayOn, 'services.dispatcher.extraEnv[0].name=DELIVERY_TIMEOUT_MS', 'services.dispatcher.extraEnv[0].value=30000'])).toMatch(
      /extraEnv\/0\/value|extraEnv\.0\.value/,
    );
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
