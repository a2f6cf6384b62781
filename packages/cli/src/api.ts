// What every command is given: where the API is and the key.
import type { IncomingMessage } from 'node:http';

export interface Api {
  /** Without a trailing slash. */
  apiUrl: string;
  apiKey: string;
}

/** `403 forbidden: <message>` from an error answer of the API. */
export async function apiError(res: Response): Promise<string> {
  return describeError(res.status, await res.text());
}

/** The same, for a refused WebSocket upgrade. */
export function upgradeError(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', () => resolve(describeError(res.statusCode ?? 0, '')));
    res.on('end', () => resolve(describeError(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
  });
}

function describeError(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: string; message?: string };
    if (body.error) return `${status} ${body.error}: ${body.message ?? ''}`;
  } catch {}
  return `${status} ${text.slice(0, 200)}`;
}
