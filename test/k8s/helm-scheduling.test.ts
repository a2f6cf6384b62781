// Scheduling and metadata on every pod the chart makes, hooks included (the migrate Job a
// tainted node pool or an injected sidecar would otherwise hold up forever, the NATS servers,
// the test pod); what Helm 4's schema check does not do by itself (patterns) and what no pod
// could survive (a bind relay off the host network), refused at render; the monitoring options.
import { describe, expect, it } from 'vitest';
import { byKind, named, podsOf, refused, template } from './helm-render.ts';
import { validateObject } from './manifests.ts';

/** Every pod kind: the services, the migrate Job, NATS, the test pod. */
const ALL_PODS = ['secrets.existingSecret=k', 'nats.enabled=true', 'relay.mode=nat', 'relay.sourceIps={198.51.100.20}'];

describe('scheduling and metadata on every pod', () => {
  it('podDefaults reach all pods, hooks too; a pod’s own values add (labels, annotations, nodeSelector merge; tolerations append; affinity wins)', async () => {
    const objects = await template(
      [
        ...ALL_PODS,
        'podDefaults.podAnnotations.sidecar\\.istio\\.io/inject=false',
        'podDefaults.podLabels.team=payments',
        'podDefaults.nodeSelector.pool=wirehook',
        'podDefaults.tolerations[0].key=dedicated',
        'podDefaults.tolerations[0].operator=Exists',
        'podDefaults.tolerations[0].effect=NoSchedule',
        'podDefaults.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool',
        'podDefaults.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists',
        'migrate.podAnnotations.proxy\\.istio\\.io/config=holdApplicationUntilProxyStarts',
        'migrate.tolerations[0].key=migrations',
        'migrate.tolerations[0].operator=Exists',
        'migrate.nodeSelector.zone=a',
        'migrate.priorityClassName=high',
        'nats.podLabels.tier=messaging',
        'nats.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=100',
        'nats.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey=kubernetes.io/hostname',
        'tests.nodeSelector.pool=test-runners',
      ],
      { setString: ['podDefaults.podAnnotations.sidecar\\.istio\\.io/inject=false'] },
    );
    const pods = podsOf(objects);
    expect(pods.map((p) => p.name.split(' ')[0]).sort()).toEqual(expect.arrayContaining(['Deployment', 'Job', 'Pod', 'StatefulSet']));
    expect(pods).toHaveLength(7 + 3);
    for (const p of pods) {
      expect(p.metadata['annotations']?.['sidecar.istio.io/inject'], p.name).toBe('false');
      expect(p.metadata['labels'].team, p.name).toBe('payments');
      expect(p.spec['tolerations'][0], p.name).toEqual({ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' });
      expect(p.spec['nodeSelector'].pool, p.name).toBe(p.name === 'Pod wh-test-api' ? 'test-runners' : 'wirehook');
    }
    const job = pods.find((p) => p.name === 'Job wh-migrate')!;
    expect(job.metadata['annotations']['proxy.istio.io/config']).toBe('holdApplicationUntilProxyStarts');
    expect(job.spec['tolerations']).toEqual([
      { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'migrations', operator: 'Exists' },
    ]);
    expect(job.spec['nodeSelector']).toEqual({ pool: 'wirehook', zone: 'a' });
    expect(job.spec['priorityClassName']).toBe('high');
    expect(job.spec['affinity'].nodeAffinity).toBeDefined();
    const nats = pods.find((p) => p.name === 'StatefulSet wh-nats')!;
    expect(nats.metadata['labels'].tier).toBe('messaging');
    expect(nats.spec['affinity']).toEqual({
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } }] },
    });
    // The selector's labels stay the chart's whatever a pod's labels say.
    expect(nats.metadata['labels']['app.kubernetes.io/component']).toBe('nats');
    for (const o of [...byKind(objects, 'Job'), ...byKind(objects, 'StatefulSet'), ...byKind(objects, 'Pod')]) {
      await expect(validateObject(o), `${o.kind} ${o.metadata.name}`).resolves.toBeUndefined();
    }
  });

  it('a pod’s label cannot take over a selector label', async () => {
    const objects = await template([
      'secrets.existingSecret=k',
      'services.gateway.podLabels.app\\.kubernetes\\.io/component=web',
      'podDefaults.podLabels.app\\.kubernetes\\.io/instance=x',
    ]);
    const labels = named(objects, 'Deployment', 'wh-gateway')['spec'].template.metadata.labels;
    expect(labels).toMatchObject({ 'app.kubernetes.io/component': 'gateway', 'app.kubernetes.io/instance': 'wh' });
  });
});

describe('refused at render', () => {
  it.each([
    // Helm 4 validates no `format`: the patterns are what refuses these.
    [['relay.mode=nat', 'relay.sourceIps={999.1.1.1}'], "'/relay/sourceIps/0'"],
    [['relay.mode=nat', 'relay.sourceIps={relay.example.com}'], "'/relay/sourceIps/0'"],
    [['relay.mode=nat', 'relay.sourceIps={2001:db8::7::1}'], "'/relay/sourceIps/0'"],
    [['natsUrl=ws://nats:8080'], "'/natsUrl'"],
    [['natsUrl=wss://nats:443'], "'/natsUrl'"],
    [['image.digest=sha256:abc'], "'/image/digest'"],
    [['nameOverride=Hooks'], "'/nameOverride'"],
    [['global.imageRegistry=https://registry.example'], "'/global/imageRegistry'"],
    [['nats.goMemLimit=1.5Gi'], "'/nats/goMemLimit'"],
    // A bind relay in a pod's own network namespace never holds the pool's addresses: never ready.
    [['relay.sourceIps={203.0.113.7}'], 'relay.mode=bind binds the pool’s addresses'.replace('’', "'")],
    // On the host network with policies on, the dispatchers reach it only through relay.nodeCidrs: every fixed_ip send would fail.
    [['relay.sourceIps={203.0.113.7}', 'relay.hostNetwork=true'], 'relay.hostNetwork=true with NetworkPolicies on needs relay.nodeCidrs'],
    [['metrics.serviceMonitor.enabled=true', 'metrics.serviceMonitor.interval=15s', 'metrics.serviceMonitor.scrapeTimeout=30s'], 'longer than its interval'],
    [['metrics.prometheusRule.enabled=true', 'metrics.prometheusRule.disabledRules={WirehookRelayDown}'], 'no alert is called WirehookRelayDown'],
  ])('%j', async (sets, message) => {
    expect(await refused(['secrets.existingSecret=k', ...sets])).toContain(message);
  });

  it('valid addresses pass: IPv4 and IPv6 sources, and a bind relay on the host network', async () => {
    const objects = await template([
      'secrets.existingSecret=k',
      'relay.sourceIps={203.0.113.7,2001:db8::7}',
      'relay.hostNetwork=true',
      'relay.nodeCidrs={10.0.5.0/24}',
    ]);
    expect(named(objects, 'ConfigMap', 'wh-config')['data'].RELAY_SOURCE_IPS).toBe('203.0.113.7,2001:db8::7');
  });
});

describe('monitoring', () => {
  it('ServiceMonitor: scrapeTimeout, relabelings and metricRelabelings as given', async () => {
    const objects = await template([
      'secrets.existingSecret=k',
      'metrics.serviceMonitor.enabled=true',
      'metrics.serviceMonitor.scrapeTimeout=20s',
      'metrics.serviceMonitor.relabelings[0].targetLabel=cluster',
      'metrics.serviceMonitor.relabelings[0].replacement=eu-1',
      'metrics.serviceMonitor.metricRelabelings[0].action=drop',
      'metrics.serviceMonitor.metricRelabelings[0].sourceLabels={__name__}',
      'metrics.serviceMonitor.metricRelabelings[0].regex=nodejs_.*',
    ]);
    expect(named(objects, 'ServiceMonitor', 'wh')['spec'].endpoints).toEqual([
      {
        port: 'metrics',
        interval: '30s',
        scrapeTimeout: '20s',
        relabelings: [{ targetLabel: 'cluster', replacement: 'eu-1' }],
        metricRelabelings: [{ action: 'drop', sourceLabels: ['__name__'], regex: 'nodejs_.*' }],
      },
    ]);
  });

  it('PrometheusRule: a rule left out by name, extra labels on every alert under the rule’s own (severity stays)', async () => {
    const objects = await template([
      'secrets.existingSecret=k',
      'metrics.prometheusRule.enabled=true',
      'metrics.prometheusRule.disabledRules={WirehookRedisUnreachable}',
      'metrics.prometheusRule.additionalRuleLabels.team=payments',
      'metrics.prometheusRule.additionalRuleLabels.severity=info',
    ]);
    const rules = named(objects, 'PrometheusRule', 'wh')['spec'].groups.flatMap((g: { rules: { alert: string; labels: Record<string, string> }[] }) => g.rules);
    const names = rules.map((r: { alert: string }) => r.alert);
    expect(names).not.toContain('WirehookRedisUnreachable');
    expect(names).toContain('WirehookRelaySendsFailing');
    expect(names).toHaveLength(8);
    for (const r of rules) expect(r.labels.team, r.alert).toBe('payments');
    expect(rules.find((r: { alert: string }) => r.alert === 'WirehookDispatchersDown').labels.severity).toBe('critical');
  });
});
