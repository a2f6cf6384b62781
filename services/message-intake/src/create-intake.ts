import type { Bus } from '@wirehook/bus';
import type { Clock } from '@wirehook/core';
import type { Component, Logger } from '@wirehook/platform';
import { grpcComponent } from '@wirehook/rpc';
import type { Store } from '@wirehook/store';
import type { Registry } from 'prom-client';
import { startIntakeGrpcServer } from './grpc-server.ts';
import { MessageIntake } from './message-intake.ts';

/** The settings message-intake's process reads to serve the gateways (its config schema defines them). */
export interface IntakeSettings {
  GRPC_HOST: string;
  GRPC_PORT: number;
  INTERNAL_AUTH_TOKEN: string;
}

/** What the composition root already has: the store opened, the bus connected. */
export interface IntakeShared {
  store: Store;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
}

/**
 * message-intake as its own process has it: MessageIntake on the store and the bus, served
 * to the gateways over gRPC (with health) at GRPC_HOST:GRPC_PORT, callers holding the
 * INTERNAL_AUTH_TOKEN only. `grpc` is the process's one component of its own: it binds at
 * start, after the store and bus are there, and drains first at stop.
 */
export function createIntake(settings: IntakeSettings, shared: IntakeShared): { intake: MessageIntake; grpc: Component & { port(): number } } {
  const { store, bus, clock, logger, registry } = shared;
  const intake = new MessageIntake({ store, bus, clock, logger, registry });
  const grpc = grpcComponent(() =>
    startIntakeGrpcServer({ intake, address: `${settings.GRPC_HOST}:${settings.GRPC_PORT}`, authToken: settings.INTERNAL_AUTH_TOKEN, logger, registry }),
  );
  return { intake, grpc };
}
