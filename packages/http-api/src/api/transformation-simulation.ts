import {
  InvalidError,
  runTransformation,
  urlBoundsOf,
  TransformerUnavailableError,
  UnavailableError,
  webhookBody,
  type Endpoint,
  type Tenant,
  type TransformationSimulationResponse,
  type Transformer,
} from '@wirehook/core';

/** What POST /v1/endpoints/{id}/transformation/simulate was given (simulateTransformationBody). */
export interface SimulationInput {
  event_type: string;
  payload: unknown;
  code?: string | undefined;
}

/**
 * The request a webhook of `input` would become for `endpoint`, through `input.code` or else the
 * endpoint's stored transformation — the same run and checks as a send (runTransformation), at
 * `now`, nothing sent. The code is given the endpoint's custom headers as the API shows them
 * (redacted): a simulation never opens a sealed value, so it can never echo one.
 * @throws InvalidError (422) when there is no code to run; UnavailableError (503) when the sandbox is busy past its wait limits
 * or down, or the tenant's previous simulation is still running.
 */
export async function simulateTransformation(
  transformer: Transformer,
  tenant: Tenant,
  endpoint: Endpoint,
  input: SimulationInput,
  now: number,
  elapsed: () => number,
): Promise<TransformationSimulationResponse> {
  const code = input.code ?? endpoint.transformation?.code;
  if (code === undefined) throw new InvalidError('code: the endpoint has no transformation; give the code to try');
  const headers = { ...(endpoint.headers?.shown ?? {}) };
  const webhook = { event_type: input.event_type, payload: input.payload, headers, url: endpoint.url };
  let ran: Awaited<ReturnType<typeof runTransformation>>;
  try {
    // A simulation: one at a time per tenant, in the tenant's own turns (TransformRunner), so a
    // tenant's simulate calls never crowd out other tenants' sends through a shared sandbox.
    const turn = { tenant, endpointId: endpoint.id, simulation: true };
    ran = await runTransformation(transformer, code, webhook, now, turn, urlBoundsOf(endpoint), new Set(Object.values(headers)));
  } catch (err) {
    // The sandbox is busy (its wait limits) or down: ours, and passing — 503, try again.
    if (err instanceof TransformerUnavailableError) throw new UnavailableError(`transformation: ${err.message}; try again shortly`);
    throw err;
  }
  const duration_ms = Math.round(elapsed());
  if (ran.kind === 'cancel') return { cancel: true, request: null, error: null, duration_ms };
  if (ran.kind === 'error') return { cancel: false, request: null, error: ran.error, duration_ms };
  const body = webhookBody(input.event_type, now, ran.request.payloadJson);
  return {
    cancel: false,
    request: { url: ran.request.url, headers: { ...ran.request.headers, 'content-type': 'application/json' }, body },
    error: null,
    duration_ms,
  };
}
