// A stand-in Kubernetes API server for `helm template --dry-run=server`: Helm's lookups (the
// chart's Secrets, the kube-dns Service, a 0.x install's Deployments) are answered from the
// maps it holds, discovery lists the kinds the chart renders, and nothing is stored. No cluster can run on the development machines; this is the smallest
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
  /** Services by namespace/name: their ClusterIP (the chart looks up kube-dns's; kube-system/kube-dns is 10.96.0.10, as kubeadm's). */
  services: Map<string, string>;
  /** Deployments and StatefulSets by `kind namespace/name`: their selector's matchLabels (an install made earlier). */
  workloads: Map<string, Record<string, string>>;
  /** Request paths answered 403 Forbidden (a deployer without read access there). */
  forbidden: Set<string>;
  /** Forgets every object and refusal (the cluster's kube-dns Service stays). */
  clear(): void;
  close(): Promise<void>;
}

/** Every cluster has its DNS Service; kubeadm's and kind's answers on this address. */
const KUBE_DNS = 'kube-system/kube-dns';
export const KUBE_DNS_IP = '10.96.0.10';

export async function startFakeKubeApi(): Promise<FakeKubeApi> {
  const secrets = new Map<string, Record<string, string>>();
  const services = new Map<string, string>([[KUBE_DNS, KUBE_DNS_IP]]);
  const workloads = new Map<string, Record<string, string>>();
  const forbidden = new Set<string>();
  const server: Server = createServer((req, res) => {
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (forbidden.has(path)) {
      return send(403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: `${path} is forbidden: User "deployer" cannot get it`,
      });
    }
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
    const svc = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)$/.exec(path);
    if (svc && services.has(`${svc[1]}/${svc[2]}`)) {
      const metadata = { name: svc[2], namespace: svc[1] };
      return send(200, { kind: 'Service', apiVersion: 'v1', metadata, spec: { clusterIP: services.get(`${svc[1]}/${svc[2]}`) } });
    }
    const apps = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(deployments|statefulsets)\/([^/]+)$/.exec(path);
    const kind = apps?.[2] === 'deployments' ? 'Deployment' : 'StatefulSet';
    if (apps && workloads.has(`${kind} ${apps[1]}/${apps[3]}`)) {
      const metadata = ownedBy(apps[3]!, apps[1]!);
      return send(200, { kind, apiVersion: 'apps/v1', metadata, spec: { selector: { matchLabels: workloads.get(`${kind} ${apps[1]}/${apps[3]}`) } } });
    }
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
  const clear = () => {
    secrets.clear();
    services.clear();
    services.set(KUBE_DNS, KUBE_DNS_IP);
    workloads.clear();
    forbidden.clear();
  };
  return { kubeconfig, secrets, services, workloads, forbidden, clear, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Metadata as the release made the object: Helm adopts only objects that carry its ownership marks. */
function ownedBy(name: string, namespace: string) {
  return {
    name,
    namespace,
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': RELEASE, 'meta.helm.sh/release-namespace': namespace },
  };
}

function secret(key: string, data: Record<string, string>) {
  const [namespace, name] = key.split('/') as [string, string];
  return { kind: 'Secret', apiVersion: 'v1', metadata: ownedBy(name, namespace), type: 'Opaque', data };
}
