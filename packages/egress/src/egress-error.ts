import { ATTEMPT_TIMEOUT_MS } from '@wirehook/core/without-schemas';
import { errorCode } from './resolve-host.ts';

/** Why a send failed; the first word of every `SendResult.error`. */
export const EGRESS_ERROR_KINDS = [
  'http_status',
  'redirect',
  'timeout',
  'dns',
  'blocked',
  'connection',
  'tls',
  // The egress relay (fixed_ip endpoints) failed us: no source address, unreachable. Our fault, not the endpoint's.
  'relay',
] as const;
export type EgressErrorKind = (typeof EGRESS_ERROR_KINDS)[number];

/** A failure classified for the attempt record: `error` is `<kind>: <detail>`. */
export interface EgressFailure {
  kind: EgressErrorKind;
  error: string;
}

/**
 * An error the egress raises itself (refused address, unresolvable host, time limit), so
 * that {@link classifyError} needs no guessing for it.
 */
export class EgressError extends Error {
  readonly kind: EgressErrorKind;
  readonly detail: string;

  constructor(kind: EgressErrorKind, detail: string) {
    super(`${kind}: ${detail}`);
    this.name = 'EgressError';
    this.kind = kind;
    this.detail = detail;
  }
}

/** `timeout: no response within 15 s` for the given limit (`no connection within …` while waiting for one). */
export function timeoutError(timeoutMs: number, phase: 'response' | 'connection' = 'response'): EgressError {
  if (phase === 'connection') return new EgressError('timeout', `no connection within ${timeoutMs / 1000} s`);
  return new EgressError('timeout', `no response within ${timeoutMs / 1000} s`);
}

// Transport-level timeouts from undici and the OS socket layer.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// OpenSSL certificate-verification results that carry no common prefix.
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
]);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

/**
 * Maps anything a send can throw to a failure kind and its `<kind>: <detail>` text. Pure;
 * never throws. `timeoutMs` only words the message of a timeout. Unknown errors are
 * `connection` failures, named by their code (or message).
 */
export function classifyError(err: unknown, timeoutMs = ATTEMPT_TIMEOUT_MS): EgressFailure {
  if (err instanceof EgressError) return { kind: err.kind, error: err.message };
  const inner = firstCause(err);
  const code = errorCode(inner) ?? errorCode(err);
  const detail = describe(code, inner);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return failure('timeout', `no response within ${timeoutMs / 1000} s`);
  if (code !== undefined && isTlsCode(code)) return failure('tls', detail);
  if (code !== undefined && DNS_CODES.has(code)) return failure('dns', detail);
  if (inner instanceof Error && inner.name === 'AbortError') return failure('timeout', `no response within ${timeoutMs / 1000} s`);
  return failure('connection', detail);
}

function failure(kind: EgressErrorKind, detail: string): EgressFailure {
  return { kind, error: `${kind}: ${detail}` };
}

function isTlsCode(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('CERT_') || TLS_VERIFY_CODES.has(code);
}

// `net.connect` with several addresses fails with an AggregateError of one error per
// address; the first says what happened. undici sometimes wraps the cause too.
function firstCause(err: unknown): unknown {
  if (err instanceof AggregateError && err.errors.length > 0 && errorCode(err) === undefined) return err.errors[0];
  if (err instanceof Error && errorCode(err) === undefined && err.cause !== undefined) return firstCause(err.cause);
  return err;
}

function describe(code: string | undefined, err: unknown): string {
  const message = err instanceof Error ? oneLine(err.message) : oneLine(String(err));
  if (code === undefined) return message === '' ? 'unknown error' : message;
  if (message === '' || message === code) return code;
  return `${code} (${message})`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
