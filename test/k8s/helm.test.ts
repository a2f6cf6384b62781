// The Helm chart rendered by the real Helm (./dev test fetches it): lint, and the Secret holding
// the sealing key — the generated key never replaced (lookups answered by a stand-in API server),
// rendering without a cluster refused without an existing Secret. The rendered manifests are
// checked in helm-defaults.test.ts, helm-nats-relay.test.ts and helm-platform.test.ts. An install
// into kind runs in .github/workflows/chart.yml.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeKubeApi, startFakeKubeApi } from './fake-kube-api.ts';
import { byKind, chart, container, EXTERNAL, helm, named, template } from './helm-render.ts';

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
