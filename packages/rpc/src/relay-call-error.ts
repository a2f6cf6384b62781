import { status } from '@grpc/grpc-js';
import { RpcError } from './errors.ts';

/**
 * The attempt's `error` when a call to the egress relay failed, naming the relay: what went
 * wrong between the dispatcher and the relay, never the endpoint (every one starts with
 * `relay:`, so it does not count toward the endpoint's automatic stop). Told apart because an
 * operator acts differently on each: start the relay, look at why it is slow, or fix
 * INTERNAL_AUTH_TOKEN.
 */
export function relayCallError(err: unknown, address: string, deadlineMs: number): string {
  const code = grpcStatusOf(err);
  const details = detailsOf(err);
  switch (code) {
    case status.UNAVAILABLE:
      return `relay: unreachable at ${address} (${details})`;
    case status.DEADLINE_EXCEEDED:
      // The relay may still have sent it: the retry makes it at least once, as for any timeout.
      return `relay: no answer from ${address} within ${deadlineMs} ms`;
    case status.UNAUTHENTICATED:
      return `relay: ${address} refused the call (its INTERNAL_AUTH_TOKEN differs from the dispatcher's)`;
    case undefined:
      return `relay: the call to ${address} failed (${details})`;
    default:
      return `relay: the call to ${address} failed (${status[code] ?? code}: ${details})`;
  }
}

/** The gRPC status of a client call's rejection (createClient wraps the ServiceError as `cause` or in an RpcError). */
function grpcStatusOf(err: unknown): status | undefined {
  if (err instanceof RpcError) return err.code;
  const cause = err instanceof Error ? err.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** grpc-js' own words (e.g. `No connection established. Last error: connect ECONNREFUSED …`), not our wrapper's. */
function detailsOf(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const details = (cause as { details?: unknown } | undefined)?.details;
  // grpc-js appends an empty "Resolution note:" to connection failures: noise in an attempt record.
  if (typeof details === 'string' && details !== '') return details.replace(/\.?\s*Resolution note:\s*$/, '');
  return err instanceof Error ? err.message : String(err);
}
