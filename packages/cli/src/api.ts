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

/**
 * Why a fetch got no answer, for a message: the cause's code (ECONNREFUSED, …) or message, where
 * fetch's own says only "fetch failed". fetch refuses the Fetch standard's "bad ports" before
 * connecting, with the cause "bad port": that one is spelled out, with the port.
 */
export function unreachableDetail(err: unknown, url: string): string {
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.message === 'bad port') {
    return `bad port: fetch refuses port ${new URL(url).port}, one of the Fetch standard's blocked ports such as 6000 and 10080; use another port`;
  }
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
