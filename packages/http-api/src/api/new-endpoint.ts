import {
  DEFAULT_RETRY_POLICY,
  MAX_ENDPOINTS_PER_CONSUMER,
  newId,
  newSigningSecret,
  type EndpointAuthInput,
  type readEndpointTls,
  sealEndpointAuth,
  sealEndpointHeaders,
  sealEndpointTls,
  type Endpoint,
  type Tenant,
} from '@wirehook/core';
import type { ApiDeps } from '../deps.ts';

/** What a caller chooses of a new endpoint; the rest starts as every endpoint's does. */
export type EndpointChoices = Pick<Endpoint, 'consumerId' | 'url'> &
  Partial<Pick<Endpoint, 'description' | 'eventTypes' | 'fixedIp' | 'retry' | 'compatSignature' | 'ordering' | 'rateLimit' | 'type' | 'transformation'>> & {
    /** Custom headers in the clear (checked by endpointHeadersInput): sealed here, for the new id. */
    headers?: Record<string, string> | null;
    /** A client certificate as readEndpointTls read it: its key sealed here, for the new id. */
    tls?: ReturnType<typeof readEndpointTls> | null;
    /** OAuth client credentials as the API took them: the client secret sealed here, for the new id. */
    auth?: EndpointAuthInput | null;
  };

/**
 * Stores a new endpoint with its first signing secret (sealed), within the consumer's endpoint
 * cap: the one place a new endpoint's defaults live (POST /v1/endpoints, `wirehook listen`).
 * @returns the endpoint and its secret in the clear, shown once.
 */
export async function createEndpoint(
  deps: Pick<ApiDeps, 'store' | 'clock' | 'secretBox'>,
  tenant: Tenant,
  chosen: EndpointChoices,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const now = deps.clock.now();
  const secret = newSigningSecret();
  const id = newId('endpoint', deps.clock);
  const { headers, tls, auth, ...rest } = chosen;
  const endpoint = await deps.store.endpoints.create(
    tenant,
    {
      id,
      description: null,
      eventTypes: null,
      fixedIp: false,
      retry: { ...DEFAULT_RETRY_POLICY },
      compatSignature: null,
      ordering: 'none',
      rateLimit: null,
      ...rest,
      headers: headers ? sealEndpointHeaders(deps.secretBox, id, headers) : null,
      tls: tls ? sealEndpointTls(deps.secretBox, id, tls) : null,
      auth: auth ? sealEndpointAuth(deps.secretBox, id, auth, null) : null,
      status: 'active',
      disabledReason: null,
      failingSince: null,
      createdAt: now,
    },
    { sealed: deps.secretBox.seal(secret, id), createdAt: now, expiresAt: null },
    MAX_ENDPOINTS_PER_CONSUMER,
  );
  return { endpoint, secret };
}
