// The kustomize manifests (k8s/): both overlays render with `kubectl kustomize`; every object
// validates against the Kubernetes API schemas (kubernetes-models, generated from the
// upstream OpenAPI); every service's zod config accepts the environment its Deployment gets
// (drift: a variable a service requires and the manifests forget fails here).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { alertingConfigSchema } from '@wirehook/alerting';
import { gatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { relayConfigSchema } from '../../services/egress-relay/src/config.ts';
import { dispatcherConfigSchema } from '../../services/dispatcher/src/config.ts';
import { intakeConfigSchema } from '../../services/message-intake/src/config.ts';
import { recoveryConfigSchema } from '../../services/recovery/src/config.ts';

const root = join(import.meta.dirname, '..', '..');
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: any };

function render(overlay: string): Manifest[] {
  const res = spawnSync('kubectl', ['kustomize', join(root, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  if (res.error) throw new Error(`kubectl (with kustomize) is needed for the manifest checks: ${res.error.message}`);
  expect(res.status, res.stderr).toBe(0);
  return parseAllDocuments(res.stdout).map((d) => d.toJS() as Manifest);
}

/** The kubernetes-models class of an object: `apps/v1` + `Deployment` → kubernetes-models/apps/v1/Deployment. */
async function validate(object: Manifest): Promise<void> {
  const group = object.apiVersion.includes('/') ? object.apiVersion : `v1`;
  const mod = (await import(`kubernetes-models/${group}/${object.kind}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = mod[object.kind] ?? mod['default'];
  if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  new Model(object).validate();
}

const SCHEMAS = {
  gateway: gatewayConfigSchema,
  portal: gatewayConfigSchema,
  'message-intake': intakeConfigSchema,
  dispatcher: dispatcherConfigSchema,
  'egress-relay': relayConfigSchema,
  recovery: recoveryConfigSchema,
  alerting: alertingConfigSchema,
} as const;

describe.each(['dev', 'prod'])('k8s/overlays/%s', (overlay) => {
  it('renders, and every object is valid Kubernetes', async () => {
    const objects = render(overlay);
    expect(
      objects
        .filter((o) => o.kind === 'Deployment')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(Object.keys(SCHEMAS).sort());
    for (const object of objects) {
      await expect(validate(object), `${object.kind} ${object.metadata.name}`).resolves.toBeUndefined();
    }
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const pod = d['spec'].template.spec;
      expect(pod.automountServiceAccountToken, d.metadata.name).toBe(false);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.containers[0].securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(pod.containers[0].readinessProbe.httpGet.path).toBe('/readyz');
      expect(pod.containers[0].livenessProbe.httpGet.path).toBe('/livez');
    }
  });
});

it('every service accepts the environment the dev overlay gives it (no required variable forgotten)', () => {
  const objects = render('dev');
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'wirehook-config')!['data'] as Record<string, string>;
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'wirehook-secrets')!;
  const secrets = Object.fromEntries(
    Object.entries((secret['data'] ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const container = d['spec'].template.spec.containers[0];
    const own = Object.fromEntries(
      (container.env ?? []).filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const env = { ...config, ...secrets, ...own };
    const schema = SCHEMAS[d.metadata.name as keyof typeof SCHEMAS];
    const parsed = schema.safeParse(env);
    expect(parsed.success, `${d.metadata.name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
});
