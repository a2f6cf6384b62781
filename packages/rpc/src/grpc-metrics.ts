import { status as grpcStatus } from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Calls handled and their latency, by method and status code, as go-grpc-prometheus names them (stock dashboards work). */
export interface GrpcMetrics {
  observe(side: 'server' | 'client', path: string, code: number, seconds: number): void;
}

const CODE_NAMES = new Map<number, string>(
  Object.entries(grpcStatus)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
);
const made = new WeakMap<Registry, GrpcMetrics>();

/** The gRPC metrics of a process's registry (made once per registry: clients and servers share them). */
export function grpcMetrics(registry: Registry): GrpcMetrics {
  let metrics = made.get(registry);
  if (metrics) return metrics;
  const labelNames = ['grpc_service', 'grpc_method', 'grpc_code'] as const;
  const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  const handled = {
    server: new Counter({
      name: 'grpc_server_handled_total',
      help: 'gRPC calls completed by this server, by method and status code',
      labelNames,
      registers: [registry],
    }),
    client: new Counter({
      name: 'grpc_client_handled_total',
      help: 'gRPC calls this process made, completed, by method and status code',
      labelNames,
      registers: [registry],
    }),
  };
  const seconds = {
    server: new Histogram({ name: 'grpc_server_handling_seconds', help: 'Time to answer a gRPC call', labelNames, buckets, registers: [registry] }),
    client: new Histogram({
      name: 'grpc_client_handling_seconds',
      help: 'Time until a gRPC call this process made was answered',
      labelNames,
      buckets,
      registers: [registry],
    }),
  };
  metrics = {
    observe(side, path, code, s) {
      // /wirehook.intake.v1.MessageIntake/Send → service wirehook.intake.v1.MessageIntake, method Send
      const [, service = '', method = ''] = path.split('/');
      const labels = { grpc_service: service, grpc_method: method, grpc_code: CODE_NAMES.get(code) ?? String(code) };
      handled[side].inc(labels);
      seconds[side].observe(labels, s);
    },
  };
  made.set(registry, metrics);
  return metrics;
}
