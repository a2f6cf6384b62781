/**
 * The bench's endpoint transformation (issue 45): renames the payload's `kind` to `type`
 * (the bench payload is `{kind: 'bench', pad: '…'}`), the rest of the webhook as it came — a
 * small transformation of the kind customers write. bench/transform.ts runs it in the sandbox
 * alone, the `transformed` scenario on every delivery to an endpoint.
 */
export const RENAME_TRANSFORMATION =
  'function handler(webhook) {\n  const { kind, ...rest } = webhook.payload;\n  webhook.payload = { ...rest, type: kind };\n  return webhook;\n}';
