// The Helm chart rendered by the real Helm with the bundled NATS (its cluster, the stream's
// replicas, delivery.allowHosts) and with the egress relay given a pool (bind on the host
// network, or nat on a NAT node pool).
import { describe, expect, it } from 'vitest';
import { chart, container, envOf, helm, named, template, UNCONNECTED } from './helm-render.ts';

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
    const refused = await helm([
      'template',
      'wh',
      chart,
      '--set',
      'secrets.existingSecret=k',
      '--set',
      UNCONNECTED,
      '--set',
      'nats.enabled=true',
      '--set',
      'jetstream.replicas=3',
    ]);
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
