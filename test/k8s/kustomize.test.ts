// The kustomize manifests (k8s/): both overlays render with `kubectl kustomize`; every object
// validates against the Kubernetes API schemas (kubernetes-models, generated from the
// upstream OpenAPI); every service's zod config accepts the environment its Deployment gets
// (drift: a variable a service requires and the manifests forget fails here).
import { describe, expect, it } from 'vitest';
import { render, SCHEMAS, sharedEnvironment, validateObject as validate } from './manifests.ts';

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
  const shared = sharedEnvironment(objects);
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const container = d['spec'].template.spec.containers[0];
    const own = Object.fromEntries(
      (container.env ?? []).filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const env = { ...shared, ...own };
    const schema = SCHEMAS[d.metadata.name as keyof typeof SCHEMAS];
    const parsed = schema.safeParse(env);
    expect(parsed.success, `${d.metadata.name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
});
