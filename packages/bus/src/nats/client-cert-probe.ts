// Whether a nats-server demands a client certificate, read before connecting. Why: over TLS
// 1.3 a server with `tls { verify: true }` refuses a client without a certificate only after
// the client's handshake has completed, and nats.js (3.4) then waits out its 20 s connect
// timeout instead of failing, after which start-up would retry forever. The server says
// `tls_verify` in the INFO line it sends in plain text before TLS begins, so one look at
// it turns that wait into one clear line.
import { connect as tcpConnect } from 'node:net';
import { NatsConnectRefusedError } from './nats-auth.ts';

/** How long the look at a server's INFO may take; longer, and the connect goes ahead as usual. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The refusal to throw when a server of `urls` verifies client certificates, else undefined.
 * Unknown (no answer, a TLS-first server, an unparsable URL) counts as no: the connect itself
 * then says what is wrong. Call it only when no client certificate is configured.
 */
export async function clientCertificateRefusal(urls: readonly string[]): Promise<NatsConnectRefusedError | undefined> {
  const verdicts = await Promise.all(urls.map(async (url) => ({ url, verifies: await verifiesClients(url) })));
  const demanding = verdicts.find((v) => v.verifies);
  if (!demanding) return undefined;
  return new NatsConnectRefusedError(
    `NATS at ${demanding.url}: the server verifies client certificates (tls verify) and none is configured — set NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE`,
  );
}

/** True when the server at `url` announces `tls_verify` in its INFO line. */
export function verifiesClients(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url.includes('://') ? url : `nats://${url}`);
    host = parsed.hostname.replace(/^\[|\]$/g, '');
    port = Number(parsed.port) || 4222;
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    let seen = '';
    const socket = tcpConnect(port, host);
    const done = (verdict: boolean) => {
      socket.destroy();
      resolve(verdict);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n');
      if (end === -1 && seen.length < 64 * 1024) return;
      const line = end === -1 ? seen : seen.slice(0, end);
      done(line.startsWith('INFO ') && infoVerifies(line.slice(5)));
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

function infoVerifies(json: string): boolean {
  try {
    return (JSON.parse(json) as { tls_verify?: unknown }).tls_verify === true;
  } catch {
    return false;
  }
}
