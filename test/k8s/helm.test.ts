// The Helm chart rendered by the real Helm (./dev test fetches it): lint, and the Secret holding
// the sealing key — generated once into a hook Secret no upgrade or rollback writes again, carried
// over from chart 0.x (lookups answered by a stand-in API server), rendering without a cluster
// refused without an existing Secret. The rendered manifests are
// checked in helm-defaults.test.ts, helm-nats-relay.test.ts and helm-platform.test.ts. An install
// into kind runs in .github/workflows/chart.yml.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type FakeKubeApi, startFakeKubeApi } from './fake-kube-api.ts';
import { byKind, chart, container, EXTERNAL, helm, named, template, UNCONNECTED } from './helm-render.ts';
import { type Manifest, root } from './manifests.ts';

let kube: FakeKubeApi;
beforeAll(async () => {
  kube = await startFakeKubeApi();
});
afterAll(() => kube?.close());

it('helm lint passes with external services, and with the bundled NATS', async () => {
  for (const sets of [EXTERNAL, [...EXTERNAL.slice(0, 2), 'nats.enabled=true']]) {
    const res = await helm(['lint', chart, '--strict', ...[...sets, UNCONNECTED].flatMap((s) => ['--set', s])]);
    expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
  }
});

it('the kind job’s values (.github/kind/values.yaml, installed by CI on a real cluster) render; its senders reach MongoDB, Redis, the receiver', async () => {
  const res = await helm(
    [
      'template',
      'wirehook',
      chart,
      '--namespace',
      'wirehook',
      '-f',
      join(root, '.github/kind/values.yaml'),
      '--dry-run=server',
      '--disable-openapi-validation',
    ],
    { KUBECONFIG: kube.kubeconfig },
  );
  expect(res.status, res.stderr).toBe(0);
  const objects = parseAllDocuments(res.stdout)
    .map((d) => d.toJS() as Manifest)
    .filter(Boolean);
  const senders = named(objects, 'NetworkPolicy', 'wirehook-internet-egress')['spec'].egress as { to: unknown[]; ports?: { port: number }[] }[];
  for (const [app, port] of [
    ['mongo', 27017],
    ['redis', 6379],
    ['receiver', 8443],
  ] as const) {
    expect(senders, app).toContainEqual({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'wirehook' } }, podSelector: { matchLabels: { app } } }],
      ports: [{ port, protocol: 'TCP' }],
    });
  }
});

describe('the Secret holding the sealing key', () => {
  const keysOf = (secret: Manifest) =>
    Object.fromEntries(Object.entries(secret['data'] as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

  it('is generated once by an install into <release>-keys: 32 random bytes, base64; a hook made before anything reads it, kept', async () => {
    const objects = await template(EXTERNAL, { kubeconfig: kube.kubeconfig });
    const keys = named(objects, 'Secret', 'wh-keys');
    const { WIREHOOK_SECRET_KEY, INTERNAL_AUTH_TOKEN } = keysOf(keys);
    expect(Buffer.from(WIREHOOK_SECRET_KEY!, 'base64')).toHaveLength(32);
    expect(INTERNAL_AUTH_TOKEN).toMatch(/^[A-Za-z0-9]{48}$/);
    // A hook: in no release's manifest, so neither an upgrade nor a `helm rollback` re-applies
    // it; made before the migrate Job (weight 0); never deleted by Helm.
    expect(keys.metadata['annotations']).toEqual({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '-10',
      'helm.sh/resource-policy': 'keep',
    });
    expect(Number(named(objects, 'Job', 'wh-migrate').metadata['annotations']['helm.sh/hook-weight'])).toBeGreaterThan(-10);
    // The URLs follow the values in a Secret of their own, which holds no key.
    expect(Object.keys(keysOf(named(objects, 'Secret', 'wh-secrets'))).sort()).toEqual(['MONGODB_URL', 'NATS_URL', 'REDIS_URL']);
    for (const d of byKind(objects, 'Deployment')) {
      expect(container(d).envFrom, d.metadata.name).toEqual(
        expect.arrayContaining([{ secretRef: { name: 'wh-secrets' } }, { secretRef: { name: 'wh-keys' } }]),
      );
    }
    // The migrate Job reads the same URLs from a copy made just before it (wh-secrets, a release
    // object, is applied only after the pre-upgrade hooks: the Job would get the last release's).
    expect(container(named(objects, 'Job', 'wh-migrate')).envFrom).toEqual(
      expect.arrayContaining([{ secretRef: { name: 'wh-migrate' } }, { secretRef: { name: 'wh-keys' } }]),
    );
    expect(keysOf(named(objects, 'Secret', 'wh-migrate'))).toEqual(keysOf(named(objects, 'Secret', 'wh-secrets')));
  });

  it('is never written again: once <release>-keys exists no render makes it (no upgrade or rollback to an old revision can touch a rotated ring)', async () => {
    kube.secrets.set('wirehook/wh-keys', {
      WIREHOOK_SECRET_KEY: Buffer.from('rotated').toString('base64'),
      INTERNAL_AUTH_TOKEN: Buffer.from('t'.repeat(48)).toString('base64'),
    });
    try {
      for (let i = 0; i < 2; i++) {
        const objects = await template(EXTERNAL, { kubeconfig: kube.kubeconfig });
        expect(byKind(objects, 'Secret').map((o) => o.metadata.name)).toEqual(['wh-secrets', 'wh-migrate']);
        expect(container(named(objects, 'Deployment', 'wh-dispatcher')).envFrom).toContainEqual({ secretRef: { name: 'wh-keys' } });
      }
    } finally {
      kube.clear();
    }
  });

  it('an upgrade from chart 0.x carries the ring and token over from <release>-secrets, where 0.x kept them', async () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    kube.secrets.set('wirehook/wh-secrets', {
      WIREHOOK_SECRET_KEY: Buffer.from(key).toString('base64'),
      INTERNAL_AUTH_TOKEN: Buffer.from('t'.repeat(48)).toString('base64'),
    });
    try {
      for (let i = 0; i < 2; i++) {
        const keys = keysOf(named(await template(EXTERNAL, { kubeconfig: kube.kubeconfig }), 'Secret', 'wh-keys'));
        expect(keys).toEqual({ WIREHOOK_SECRET_KEY: key, INTERNAL_AUTH_TOKEN: 't'.repeat(48) });
      }
    } finally {
      kube.clear();
    }
  });

  it('an upgrade from chart 0.x under a release name too long for the new names still finds the ring in 0.x’s <release>-secrets', async () => {
    // 46 characters: 0.x named its Secret after the whole release name; 1.0 cuts the fullname to 39.
    const release = 'a-release-name-that-is-longer-than-thirty-nine';
    const key = Buffer.alloc(32, 9).toString('base64');
    kube.secrets.set(`wirehook/${release}-secrets`, {
      WIREHOOK_SECRET_KEY: Buffer.from(key).toString('base64'),
      INTERNAL_AUTH_TOKEN: Buffer.from('u'.repeat(48)).toString('base64'),
    });
    try {
      const objects = await template(EXTERNAL, { kubeconfig: kube.kubeconfig, release });
      const keysSecret = byKind(objects, 'Secret').find((o) => o.metadata.name.endsWith('-keys'))!;
      expect(keysSecret.metadata.name).not.toBe(`${release}-keys`); // the new, cut name
      expect(keysOf(keysSecret)).toEqual({ WIREHOOK_SECRET_KEY: key, INTERNAL_AUTH_TOKEN: 'u'.repeat(48) });
    } finally {
      kube.clear();
    }
  });

  it('rendering without a cluster (helm template, Argo CD) is refused unless secrets.existingSecret is set', async () => {
    const res = await helm(['template', 'wh', chart, ...[...EXTERNAL, UNCONNECTED].flatMap((s) => ['--set', s])]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('secrets.existingSecret is required when the chart is rendered without a cluster');
    const objects = await template(['secrets.existingSecret=wirehook-keys']);
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const d of byKind(objects, 'Deployment')) {
      expect(container(d).envFrom).toEqual([{ configMapRef: { name: 'wh-config' } }, { secretRef: { name: 'wirehook-keys' } }]);
    }
  });
});

describe('DNS egress with a cluster to look at', () => {
  const dnsRule = (objects: Manifest[]) => named(objects, 'NetworkPolicy', 'wh-egress')['spec'].egress[0];

  it('kube-dns’s ClusterIP is looked up and allowed on port 53 (NodeLocal DNS answers on it in iptables mode, without a pod behind it)', async () => {
    kube.services.set('kube-system/kube-dns', '10.96.0.10');
    try {
      const objects = await template(EXTERNAL, { kubeconfig: kube.kubeconfig });
      for (const policy of ['wh-egress', 'wh-internet-egress']) {
        expect(named(objects, 'NetworkPolicy', policy)['spec'].egress[0].to, policy).toEqual([
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
          { ipBlock: { cidr: '169.254.20.10/32' } },
          { ipBlock: { cidr: '10.96.0.10/32' } },
        ]);
      }
      // Listed already: once.
      const listed = await template([...EXTERNAL, 'networkPolicy.dns.addresses={10.96.0.10/32}'], { kubeconfig: kube.kubeconfig });
      expect(dnsRule(listed).to.filter((t: { ipBlock?: unknown }) => t.ipBlock)).toEqual([{ ipBlock: { cidr: '10.96.0.10/32' } }]);
    } finally {
      kube.clear();
    }
  });

  it('rendered without a cluster, the lookup is refused by name rather than left out; with the address listed and it off, the render goes on', async () => {
    const res = await helm(['template', 'wh', chart, '--set', 'secrets.existingSecret=k']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(
      'networkPolicy.dns.lookupClusterIP: the ClusterIP of the Service kube-system/kube-dns was not found (rendered without a cluster',
    );
    expect(res.stderr).toContain('list it in networkPolicy.dns.addresses');
    const objects = await template([
      'secrets.existingSecret=k',
      'networkPolicy.dns.lookupClusterIP=false',
      'networkPolicy.dns.addresses={169.254.20.10/32,10.96.0.10/32}',
    ]);
    expect(dnsRule(objects).to.filter((t: { ipBlock?: unknown }) => t.ipBlock)).toEqual([
      { ipBlock: { cidr: '169.254.20.10/32' } },
      { ipBlock: { cidr: '10.96.0.10/32' } },
    ]);
    // A cluster whose DNS Service has another name (OpenShift's openshift-dns/dns-default): the same refusal, naming the value.
    kube.services.delete('kube-system/kube-dns');
    try {
      const elsewhere = await helm(['template', 'wh', chart, '--dry-run=server', '--disable-openapi-validation', ...EXTERNAL.flatMap((s) => ['--set', s])], {
        KUBECONFIG: kube.kubeconfig,
      });
      expect(elsewhere.status).not.toBe(0);
      expect(elsewhere.stderr).toContain('or the DNS Service has another name: networkPolicy.dns.service');
    } finally {
      kube.clear();
    }
    // No NetworkPolicy, nothing to look up.
    expect((await helm(['template', 'wh', chart, '--set', 'secrets.existingSecret=k', '--set', 'networkPolicy.enabled=false'])).status).toBe(0);
  });

  it('a deployer who may not read that Service is told which value skips the lookup; with it off the render goes on', async () => {
    kube.forbidden.add('/api/v1/namespaces/kube-system/services/kube-dns');
    try {
      const res = await helm(['template', 'wh', chart, '--dry-run=server', '--disable-openapi-validation', ...EXTERNAL.flatMap((s) => ['--set', s])], {
        KUBECONFIG: kube.kubeconfig,
      });
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain('set networkPolicy.dns.lookupClusterIP=false if this lookup is forbidden');
      const objects = await template([...EXTERNAL, 'networkPolicy.dns.lookupClusterIP=false'], { kubeconfig: kube.kubeconfig });
      expect(dnsRule(objects).to).toHaveLength(2);
    } finally {
      kube.clear();
    }
  });
});
