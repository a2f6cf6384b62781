import { UnavailableError, within, type DeliveryId, type EndpointId, type IntakePort } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { Registry } from 'prom-client';
import {
  answerWithinMs,
  bindService,
  grpcMetrics,
  notYetLate,
  tooLate,
  deliveryToProto,
  intakev1,
  loggedWhereThrown,
  methodPath,
  sendInputFromProto,
  sendOutcomeToProto,
  serveItem,
  sendResultToProto,
  startGrpcServer,
  tenantFromProto,
  type GrpcServerHandle,
  type ServiceImpl,
} from '@wirehook/rpc';

export interface IntakeGrpcServerOptions {
  intake: IntakePort;
  /** `host:port`; port 0 picks a free one. */
  address: string;
  /** Where handler failures (faults, and dependencies down: loggedWhereThrown) and refused callers are logged. */
  logger?: Logger;
  /** The shared secret every caller must send (INTERNAL_AUTH_TOKEN). */
  authToken: string;
  /** Where its calls are counted (grpc_server_*). */
  registry?: Registry;
}

/**
 * Serves `intake` as `wirehook.intake.v1.MessageIntake`, with the standard health service,
 * on `address`. A WirehookError thrown by the intake reaches the gateway's IntakeGrpcClient
 * as the same error.
 * @throws Error when the address cannot be bound.
 */
export function startIntakeGrpcServer(options: IntakeGrpcServerOptions): Promise<GrpcServerHandle> {
  const { intake, address, logger, authToken } = options;
  return startGrpcServer({
    address,
    services: [bindService(intakev1.MessageIntake, intakeHandlers(intake, logger), ['sendBatch'])],
    onError: (err, path) => logger?.error({ err, path }, 'gRPC call failed'),
    authToken,
    onUnauthenticated: (path, peer) => logger?.warn({ path, peer }, 'refused a gRPC call without the INTERNAL_AUTH_TOKEN'),
    ...(options.registry ? { metrics: grpcMetrics(options.registry) } : {}),
  });
}

const SEND_BATCH = methodPath(intakev1.MessageIntake.method.sendBatch);
const SERVICE = 'MessageIntake';
const LATE_SEND = 'MessageIntake did not finish this send before the call’s deadline; try again';
/** The MessageIntake service's calls (exported for their tests). */
export function intakeHandlers(intake: IntakePort, logger: Logger | undefined): ServiceImpl<typeof intakev1.MessageIntake> {
  return {
    send: async (request, call) => {
      notYetLate(call, SERVICE);
      return sendResultToProto(await intake.send(sendInputFromProto(request)));
    },
    // Each send on its own, all at once (they share the store's next group commit), each
    // answered with its result or its error: one send's failure is not another's. A send still
    // running shortly before the call's deadline is answered unavailable, so that one slow send
    // does not take the others' answers down with the call; as a Send call of its own would, it
    // may still be written (the sender's Idempotency-Key makes the retry safe).
    sendBatch: async ({ sends }, call) => {
      const runMs = answerWithinMs(call.getDeadline(), Date.now());
      // Read after its deadline: none begun (see notYetLate), each answered so.
      if (runMs === 0) return { outcomes: sends.map(() => sendOutcomeToProto({ status: 'rejected', reason: tooLate(SERVICE) })) };
      const settled = await Promise.allSettled(
        sends.map(({ send, traceContext }) =>
          within(
            serveItem(SEND_BATCH, traceContext, async () => {
              if (send === undefined) throw new Error('malformed gRPC message: a batched send is missing');
              return intake.send(sendInputFromProto(send));
            }),
            runMs,
            () => new UnavailableError(LATE_SEND),
          ),
        ),
      );
      for (const s of settled) {
        if (s.status === 'rejected' && loggedWhereThrown(s.reason)) logger?.error({ err: s.reason, path: SEND_BATCH }, 'gRPC call failed');
      }
      return { outcomes: settled.map(sendOutcomeToProto) };
    },
    retryDelivery: async ({ tenant, deliveryId }, call) => {
      notYetLate(call, SERVICE);
      return { delivery: deliveryToProto(await intake.retryDelivery(tenantFromProto(tenant), deliveryId as DeliveryId)) };
    },
    releaseHeld: async ({ tenant, endpointId }, call) => {
      notYetLate(call, SERVICE);
      return { released: await intake.releaseHeld(tenantFromProto(tenant), endpointId as EndpointId) };
    },
  };
}
