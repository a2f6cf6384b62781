// A stand-in Kubernetes API server for `helm template --dry-run=server`: Helm's lookups (the
// chart's Secret) are answered from `secrets`, discovery lists the kinds the chart renders,
// and nothing is stored. No cluster can run on the development machines; this is the smallest
// thing that lets the real Helm take the code path an install or an upgrade takes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GROUPS: Record<string, [string, string][]> = {
  v1: [
    ['secrets', 'Secret'],
    ['configmaps', 'ConfigMap'],
    ['services', 'Service'],
    ['serviceaccounts', 'ServiceAccount'],
    ['pods', 'Pod'],
  ],
  'apps/v1': [
    ['deployments', 'Deployment'],
    ['statefulsets', 'StatefulSet'],
  ],
  'batch/v1': [['jobs', 'Job']],
  'policy/v1': [['poddisruptionbudgets', 'PodDisruptionBudget']],
  'networking.k8s.io/v1': [
    ['networkpolicies', 'NetworkPolicy'],
    ['ingresses', 'Ingress'],
  ],
  'autoscaling/v2': [['horizontalpodautoscalers', 'HorizontalPodAutoscaler']],
  'monitoring.coreos.com/v1': [
    ['servicemonitors', 'ServiceMonitor'],
    ['prometheusrules', 'PrometheusRule'],
  ],
  'keda.sh/v1alpha1': [['scaledobjects', 'ScaledObject']],
};

/** The release name the objects it holds belong to. */
export const RELEASE = 'wh';

export interface FakeKubeApi {
  /** A kubeconfig file that points Helm at this server. */
  kubeconfig: string;
  /** Secrets by namespace/name: `data` as Kubernetes holds it (base64 values). */
  secrets: Map<string, Record<string, string>>;
  close(): Promise<void>;
}

export async function startFakeKubeApi(): Promise<FakeKubeApi> {
  const secrets = new Map<string, Record<string, string>>();
  const server: Server = createServer((req, res) => {
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const resources = (gv: string) => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: gv,
      resources: GROUPS[gv]!.map(([name, kind]) => ({ name, singularName: kind.toLowerCase(), namespaced: true, kind, verbs: ['get', 'list'] })),
    });
    if (path === '/version') return send(200, { major: '1', minor: '31', gitVersion: 'v1.31.0' });
    if (path === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (path === '/api/v1') return send(200, resources('v1'));
    if (path === '/apis') {
      const groups = Object.keys(GROUPS)
        .filter((gv) => gv.includes('/'))
        .map((gv) => {
          const [name, version] = gv.split('/') as [string, string];
          return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
        });
      return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    }
    const group = /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
    if (group && GROUPS[group[1]!]) return send(200, resources(group[1]!));
    const list = /^\/api\/v1\/namespaces\/([^/]+)\/secrets$/.exec(path);
    if (list) {
      const items = [...secrets].filter(([key]) => key.startsWith(`${list[1]}/`)).map(([key, data]) => secret(key, data));
      return send(200, { kind: 'SecretList', apiVersion: 'v1', metadata: {}, items });
    }
    const one = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    if (one && secrets.has(`${one[1]}/${one[2]}`)) return send(200, secret(`${one[1]}/${one[2]}`, secrets.get(`${one[1]}/${one[2]}`)!));
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'wirehook-kube-')), 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: fake, cluster: { server: "http://127.0.0.1:${port}" } }]`,
      'contexts: [{ name: fake, context: { cluster: fake, user: fake } }]',
      'users: [{ name: fake, user: { token: fake } }]',
      'current-context: fake',
    ].join('\n'),
  );
  return { kubeconfig, secrets, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function secret(key: string, data: Record<string, string>) {
  const [namespace, name] = key.split('/');
  // As the release made it: Helm adopts only objects that carry its ownership marks.
  const metadata = {
    name,
    namespace,
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': RELEASE, 'meta.helm.sh/release-namespace': namespace },
  };
  return { kind: 'Secret', apiVersion: 'v1', metadata, type: 'Opaque', data };
}
