import { z } from 'zod';
import { requiredText, text } from './text-fields.ts';

// An endpoint's compat signature: a schema of its own, not in schemas.ts, because the domain
// model (model.ts) takes its type and schemas.ts takes the model's constants.

/**
 * Header names a compat signature may not use: the ones Wirehook sends itself, and the
 * hop-by-hop and framing ones an HTTP client refuses to take from a caller (every send
 * would fail, and the endpoint would be disabled for it).
 */
const RESERVED_HEADER =
  /^(webhook-.*|content-.*|user-agent|host|connection|keep-alive|proxy-.*|transfer-encoding|te|trailer|upgrade|expect|authorization|cookie)$/i;

export const compatSignatureSchema = z.strictObject({
  header: requiredText(100)
    .regex(/^[A-Za-z0-9-]+$/, { error: 'must be an HTTP header name (letters, digits and -)' })
    .refine((h) => !RESERVED_HEADER.test(h), {
      error: 'must not be a header Wirehook sends itself or a hop-by-hop header (Connection, Transfer-Encoding, Upgrade, Expect, TE, Host, …)',
    }),
  content: z.enum(['body', 'timestamp_body'], { error: 'must be body or timestamp_body' }),
  encoding: z.enum(['hex', 'base64'], { error: 'must be hex or base64' }),
  // A header value: visible ASCII and spaces only (no CR/LF, no text outside Latin-1 that
  // a client cannot put on the wire).
  prefix: text(50)
    .regex(/^[\x20-\x7e]*$/, { error: 'may contain only printable ASCII characters (no line breaks)' })
    .optional(),
});

export type CompatSignature = z.infer<typeof compatSignatureSchema>;
