// The Helm chart rendered by the real Helm with what platform teams set: extra env, volumes,
// scheduling and labels, a typo refused by the schema, the monitoring selectors, the KEDA option.
import { describe, expect, it } from 'vitest';
import { byKind, chart, container, envOf, helm, named, template, UNCONNECTED } from './helm-render.ts';
import { validateObject } from './manifests.ts';

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
    const res = await helm(['template', 'wh', chart, '--set', 'secrets.existingSecret=k', '--set', UNCONNECTED, '--set', 'services.gateway.replica=3']);
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
    expect(scaled['spec'].triggers[0].metadata.query).toBe('max(wirehook_deliveries_oldest_due_age_seconds{namespace="wirehook",container="dispatcher"} >= 0)');
    // The backlog unknown (every dispatcher's gauge NaN) is an error that keeps the replicas, not a 0 that scales them down.
    expect(scaled['spec'].triggers[0].metadata.ignoreNullValues).toBe('false');
    expect(scaled['spec'].minReplicaCount).toBe(2);
    expect(named(all, 'Deployment', 'wh-dispatcher')['spec'].replicas).toBeUndefined();
    // With the CPU autoscaler the Deployment has no replica count either (Helm would fight the HPA on upgrade).
    const hpa = await template(['secrets.existingSecret=k']);
    expect(named(hpa, 'Deployment', 'wh-dispatcher')['spec'].replicas).toBeUndefined();
    expect(named(hpa, 'HorizontalPodAutoscaler', 'wh-dispatcher')['spec'].minReplicas).toBe(2);
  });
});
