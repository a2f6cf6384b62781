import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** A server certificate for `localhost`, (*.)RECEIVER_TEST_HOST and 127.0.0.1, and its CA. */
export interface ServerCertificate {
  /** The issuing CA's certificate, PEM: what a client must trust. */
  caPem: string;
  /** The server's private key, PEM. */
  keyPem: string;
  /** The server's certificate, PEM. */
  certPem: string;
}

/** The process's test CA: its PEM, written once to `caFile` for NODE_EXTRA_CA_CERTS. */
export interface TestCa extends ServerCertificate {
  /** Absolute path of a file holding `caPem`; removed when the process exits. */
  caFile: string;
}

/**
 * A name in every receiver certificate, with its subdomains (`*.receiver.wirehook.test`),
 * that no resolver knows (RFC 6761 `.test`): a test maps it to a loopback address with
 * an injected lookup, so any lookup that bypasses the injected one fails instead of
 * silently succeeding.
 */
export const RECEIVER_TEST_HOST = 'receiver.wirehook.test';

// P-256 keys: generated in milliseconds, unlike RSA.
const KEY = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;
const DAY_MS = 86_400_000;

let trusted: Promise<TestCa> | undefined;
let untrusted: Promise<ServerCertificate> | undefined;
let client: Promise<ClientCertificate> | undefined;
/** The CAs' private keys by CA certificate, for issuing client certificates (kept out of the certificates handed out). */
const caKeys = new Map<string, string>();

/** A client certificate (`extKeyUsage: clientAuth`) the test CA issued, e.g. for nats-server's `--tlsverify`. */
export interface ClientCertificate {
  /** The client's private key, PEM. */
  keyPem: string;
  /** The client's certificate, PEM. */
  certPem: string;
}

/** A client certificate (CN `wirehook-test-client`) issued by {@link testCa}, made once per process. */
export function testClientCertificate(): Promise<ClientCertificate> {
  client ??= testCa().then(async (ca) => {
    const leaf = await generate([{ name: 'commonName', value: 'wirehook-test-client' }], {
      ...KEY,
      notBeforeDate: new Date(Date.now() - DAY_MS),
      notAfterDate: new Date(Date.now() + 30 * DAY_MS),
      ca: { key: caKeys.get(ca.caPem)!, cert: ca.caPem },
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    });
    return { keyPem: leaf.private, certPem: leaf.cert };
  });
  return client;
}

/**
 * The test CA of this process and a `localhost` certificate it issued, made on first use
 * and shared by every receiver after that.
 */
export function testCa(): Promise<TestCa> {
  trusted ??= issue('Wirehook Test CA').then((certs) => ({ ...certs, caFile: writeCaFile(certs.caPem) }));
  return trusted;
}

/**
 * A `localhost` certificate from a second CA that nobody trusts: a client trusting only
 * {@link testCa} fails its TLS handshake.
 */
export function untrustedCertificate(): Promise<ServerCertificate> {
  untrusted ??= issue('Wirehook Untrusted Test CA');
  return untrusted;
}

async function issue(caName: string): Promise<ServerCertificate> {
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const notAfterDate = new Date(Date.now() + 30 * DAY_MS);
  const ca = await generate([{ name: 'commonName', value: caName }], {
    ...KEY,
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...KEY,
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: RECEIVER_TEST_HOST },
          { type: 2, value: `*.${RECEIVER_TEST_HOST}` },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  caKeys.set(ca.cert, ca.private);
  return { caPem: ca.cert, keyPem: leaf.private, certPem: leaf.cert };
}

function writeCaFile(caPem: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-ca-'));
  const file = join(dir, 'ca.pem');
  writeFileSync(file, caPem);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return file;
}
