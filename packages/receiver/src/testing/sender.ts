import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A fresh endpoint secret, as Wirehook makes them. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A body as Wirehook sends it: compact `{ type, timestamp, data }`. */
export function wirehookBody(data: unknown, type = 'invoice.paid'): string {
  return JSON.stringify({ type, timestamp: '2026-01-02T03:04:05.678Z', data });
}

/**
 * The Standard Webhooks headers of `body`, signed by the official `standardwebhooks`
 * library with each of `secrets` (space-separated, as during a rotation).
 */
export function signedHeaders(
  secrets: string | readonly string[],
  body: string,
  options: { id?: string; timestampSeconds?: number } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const timestampSeconds = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const at = new Date(timestampSeconds * 1000);
  const signature = [secrets]
    .flat()
    .map((secret) => new Webhook(secret).sign(id, at, body))
    .join(' ');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
  };
}

/** Starts `server` on an ephemeral port of 127.0.0.1; returns its base URL and a stopper. */
export async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
