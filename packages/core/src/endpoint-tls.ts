// An endpoint's client certificate (`tls`, mutual TLS): receivers in banking, health and
// government refuse a connection that does not present one. Checked once here (PEM, the key
// matches the certificate, not expired) so a bad one is a 422 at create or PATCH, never a failed
// send; the key is stored sealed and never returned (endpoints.ts seals it).
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { z } from 'zod';
import { InvalidError } from './errors.ts';
import type { EndpointTls, EndpointTlsInfo } from './model.ts';
import type { SecretBox } from './secrets.ts';

/**
 * Most characters of a certificate chain or of the CA certificates (a leaf and two
 * intermediates fit), and of a key (an RSA-4096 key is ~3,300): every claim of a delivery to
 * the endpoint reads them with it, so they are kept small.
 */
export const MAX_TLS_PEM_CHARS = 12_288;
export const MAX_TLS_KEY_CHARS = 4_096;

const pem = (what: string, max = MAX_TLS_PEM_CHARS) =>
  z
    .string({ error: `must be ${what} as PEM text` })
    .min(1, { error: `must be ${what} as PEM text` })
    .max(max, { error: `must be at most ${max} characters` });

/** `tls` on create and PATCH (checked further by readEndpointTls, which needs the time). */
export const endpointTlsInput = z
  .strictObject({
    client_certificate: pem('the client certificate (with its chain, if any)'),
    client_key: pem('the client certificate’s private key', MAX_TLS_KEY_CHARS).describe('write-only: stored sealed, never returned'),
    server_ca: pem('CA certificates').nullable().optional().describe('trusted for this endpoint only, besides the public roots'),
  })
  .describe('a client certificate presented on every connection to this endpoint (mutual TLS); null removes it');

export type EndpointTlsInput = z.output<typeof endpointTlsInput>;

/** `tls` in responses: what the certificate says; never the key. */
export const endpointTlsShown = z
  .object({
    subject: z.string(),
    issuer: z.string(),
    not_after: z.number().int().describe('when the certificate expires (Unix milliseconds)'),
    fingerprint_sha256: z.string().describe('SHA-256 of the certificate, colon-separated hex'),
    server_ca_subject: z.string().nullable().describe('the subject of the first server_ca certificate; null without one'),
  })
  .nullable()
  .describe('the client certificate presented to this endpoint (mutual TLS); null: none');

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]+)-----/g;

/**
 * The certificates of a PEM text, in order. Nothing else may be in it: a private key pasted
 * with its chain would be stored in the clear (only `client_key` is sealed).
 * @throws InvalidError naming `field` when there is none, one does not parse, or another block is there.
 */
function certificates(text: string, field: string): X509Certificate[] {
  const other = [...text.matchAll(PEM_BEGIN)].map((m) => m[1]).find((kind) => kind !== 'CERTIFICATE');
  if (other !== undefined) {
    const hint = other.includes('PRIVATE KEY') ? ' (a private key goes in client_key, alone)' : '';
    throw new InvalidError(`tls.${field}: holds a ${other} block; only certificates belong here${hint}`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new InvalidError(`tls.${field}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new InvalidError(`tls.${field}: certificate ${i + 1} is not a valid X.509 certificate`);
    }
  });
}

/** One line of a distinguished name as Node prints it (one attribute a line). */
const oneLine = (dn: string) => dn.split('\n').filter(Boolean).join(', ');

/**
 * Reads `input` at `now`: the certificate (the first of `client_certificate`) must parse, not be
 * expired, and match `client_key`; `server_ca`, when given, must be certificates.
 * @throws InvalidError with a message a person can act on.
 */
export function readEndpointTls(input: EndpointTlsInput, now: number): { key: string; certificate: string; serverCa: string | null; info: EndpointTlsInfo } {
  const chain = certificates(input.client_certificate, 'client_certificate');
  const leaf = chain[0];
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(input.client_key);
  } catch {
    throw new InvalidError('tls.client_key: not a PEM private key (an unencrypted -----BEGIN PRIVATE KEY----- or RSA/EC key)');
  }
  if (!leaf!.checkPrivateKey(key)) throw new InvalidError('tls.client_key: does not belong to the client certificate (their public keys differ)');
  const notAfter = Date.parse(leaf!.validTo);
  if (!(notAfter > now)) throw new InvalidError(`tls.client_certificate: expired on ${new Date(notAfter).toISOString()}`);
  const cas = input.server_ca == null ? null : certificates(input.server_ca, 'server_ca');
  // As each send will use them: Node's TLS refuses some a parser takes (an RSA key under 2,048 bits).
  const certificate = chain.map((c) => c.toString()).join('');
  const serverCa = cas === null ? null : cas.map((c) => c.toString()).join('');
  try {
    createSecureContext({ cert: certificate, key: input.client_key, ...(serverCa === null ? {} : { ca: serverCa }) });
  } catch (err) {
    throw new InvalidError(`tls: Node's TLS refuses this certificate and key (${err instanceof Error ? err.message : String(err)})`);
  }
  const firstCa = cas?.[0];
  return {
    key: input.client_key,
    // Stored as the certificates alone, re-encoded: nothing else pasted around them is kept.
    certificate,
    serverCa,
    info: {
      subject: oneLine(leaf!.subject),
      issuer: oneLine(leaf!.issuer),
      notAfter,
      fingerprintSha256: leaf!.fingerprint256,
      serverCaSubject: firstCa === undefined ? null : oneLine(firstCa.subject),
    },
  };
}

/** What an endpoint stores of a read `tls`: the key sealed for `endpointId`. */
export function sealEndpointTls(box: Pick<SecretBox, 'seal'>, endpointId: string, read: ReturnType<typeof readEndpointTls>): EndpointTls {
  return { certificate: read.certificate, sealedKey: box.seal(read.key, endpointId), serverCa: read.serverCa, info: read.info };
}

/** Names a TLS set-up (certificate, key and CAs) for pooling: connections made with one are never used with another. */
export function endpointTlsId(tls: Pick<EndpointTls, 'certificate' | 'sealedKey' | 'serverCa'>): string {
  return createHash('sha256')
    .update(tls.certificate)
    .update('\0')
    .update(tls.sealedKey)
    .update('\0')
    .update(tls.serverCa ?? '')
    .digest('base64url')
    .slice(0, 22);
}
