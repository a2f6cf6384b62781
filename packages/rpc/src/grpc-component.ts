import type { GrpcServerHandle } from './grpc-server.ts';

/**
 * A gRPC server as a lifecycle component (the shape of @wirehook/platform's Component, which
 * this package does not depend on): `serve` binds it when the component starts, after
 * everything it serves is ready; `stop` drains it. `port()` is the bound port once started
 * (0 before), for a test that bound port 0.
 */
export function grpcComponent(
  serve: () => Promise<GrpcServerHandle>,
  name = 'grpc',
): {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  port(): number;
} {
  let handle: GrpcServerHandle | undefined;
  return {
    name,
    start: async () => {
      handle = await serve();
    },
    stop: async () => handle?.stop(),
    port: () => handle?.port ?? 0,
  };
}
