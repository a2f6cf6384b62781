import { promises as dns } from 'node:dns';

/** One resolved address, as `dns.lookup` reports it. */
export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a host name to all its addresses; rejects (ideally with a `code`) on failure. */
export type LookupFn = (host: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`getaddrinfo`, so /etc/hosts applies), every address, in its order. */
export const systemLookup: LookupFn = (host) => dns.lookup(host, { all: true, verbatim: true });

/** How one resolution ended. `code` is the resolver's error code, when it gave one. */
export type Resolution = { kind: 'resolved'; addresses: ResolvedAddress[] } | { kind: 'failed'; code: string | undefined } | { kind: 'timeout' };

/**
 * Resolves `host` once with `lookup`, giving up after `timeoutMs`. Never rejects: a
 * failure, a throw from `lookup` and an empty answer are all `failed`.
 */
export async function resolveHost(host: string, lookup: LookupFn, timeoutMs: number): Promise<Resolution> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Resolution>((done) => {
    timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs);
  });
  const lookedUp = Promise.resolve()
    .then(() => lookup(host))
    .then(
      (addresses): Resolution => (addresses.length === 0 ? { kind: 'failed', code: undefined } : { kind: 'resolved', addresses }),
      (err: unknown): Resolution => ({ kind: 'failed', code: errorCode(err) }),
    );
  try {
    return await Promise.race([lookedUp, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The string `code` of an error-like value, or undefined. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}
