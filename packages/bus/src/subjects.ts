import { tenantKey, type DeliveryId, type Tenant } from '@wirehook/core';

// Subjects and payloads of the bus, in one place. A dispatch job is the bare delivery id:
// the store holds everything else. Its tenant rides in a header (DISPATCH_TENANT_HEADER), so a
// dispatcher whose share of that tenant is taken leaves the job without claiming it; a job
// without the header (an older publisher's) is claimed as before. Should a payload ever carry
// more, it becomes a message under proto/ (as the gRPC boundary is).

/** "Delivery X may be due": wakes a dispatcher, which claims it from the store. */
export const DISPATCH_SUBJECT = 'wirehook.dispatch';

/**
 * Request/reply to the `wirehook listen` connection of a listener endpoint: served by the
 * gateway process that holds the connection, asked by the dispatcher that sends to it.
 */
export function listenSubject(endpointId: string): string {
  return `wirehook.listen.${endpointId}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeDispatchJob(deliveryId: DeliveryId): Uint8Array {
  return encoder.encode(deliveryId);
}

/** @throws Error for a payload that is not a delivery id. */
export function decodeDispatchJob(data: Uint8Array): DeliveryId {
  const id = decoder.decode(data);
  if (!id.startsWith('dlv_')) throw new Error('not a dispatch job');
  return id as DeliveryId;
}

/** The header naming a dispatch job's tenant: `<org id>/<environment>` (`org_…/live`). */
export const DISPATCH_TENANT_HEADER = 'Wirehook-Tenant';

/** The headers a dispatch job of `tenant` is published with. */
export function dispatchJobHeaders(tenant: Tenant): Record<string, string> {
  return { [DISPATCH_TENANT_HEADER]: tenantKey(tenant) };
}

/** The tenant a dispatch job's headers name; undefined when they name none, or none well formed (then the claim tells). */
export function dispatchJobTenant(headers: Readonly<Record<string, string>>): Tenant | undefined {
  const value = headers[DISPATCH_TENANT_HEADER];
  if (value === undefined) return undefined;
  const [orgId, env, ...rest] = value.split('/');
  if (rest.length > 0 || orgId === undefined || !orgId.startsWith('org_') || (env !== 'live' && env !== 'test')) return undefined;
  return { orgId, env } as Tenant;
}
