// What the manifest checks share: kustomize's rendering and each service's config schema.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { alertingConfigSchema } from '@wirehook/alerting';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { relayConfigSchema } from '../../services/egress-relay/src/config.ts';
import { dispatcherConfigSchema } from '../../services/dispatcher/src/config.ts';
import { gatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { portalConfigSchema } from '../../services/portal/src/config.ts';
import { intakeConfigSchema } from '../../services/message-intake/src/config.ts';
import { recoveryConfigSchema } from '../../services/recovery/src/config.ts';

export const root = join(import.meta.dirname, '..', '..');
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; [key: string]: any }; [key: string]: any };

/** The objects `kubectl kustomize k8s/overlays/<overlay>` renders. */
export function render(overlay: string): Manifest[] {
  const res = spawnSync('kubectl', ['kustomize', join(root, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  if (res.error) throw new Error(`kubectl (with kustomize) is needed for the manifest checks: ${res.error.message}`);
  expect(res.status, res.stderr).toBe(0);
  return parseAllDocuments(res.stdout).map((d) => d.toJS() as Manifest);
}

/** Validates one object against the Kubernetes API schemas (kubernetes-models, from the upstream OpenAPI). */
export async function validateObject(object: Manifest): Promise<void> {
  const group = object.apiVersion.includes('/') ? object.apiVersion : `v1`;
  const mod = (await import(`kubernetes-models/${group}/${object.kind}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = mod[object.kind] ?? mod['default'];
  if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  new Model(object).validate();
}

/** Each service's config schema, by its Deployment (and image argument) name. */
export const SCHEMAS = {
  gateway: gatewayConfigSchema,
  portal: portalConfigSchema,
  'message-intake': intakeConfigSchema,
  dispatcher: dispatcherConfigSchema,
  'egress-relay': relayConfigSchema,
  recovery: recoveryConfigSchema,
  alerting: alertingConfigSchema,
} as const;

/** The ConfigMap's and the Secret's variables of a rendered overlay, decoded. */
export function sharedEnvironment(objects: Manifest[]): Record<string, string> {
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'wirehook-config')!['data'] as Record<string, string>;
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'wirehook-secrets')!;
  const secrets = Object.fromEntries(
    Object.entries((secret['data'] ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
  return { ...config, ...secrets };
}
