export * as commonv1 from './gen/wirehook/common/v1/tenant_pb.ts';
export * as intakev1 from './gen/wirehook/intake/v1/intake_pb.ts';
export * from './errors.ts';
export * from './grpc-service.ts';
export * from './grpc-server.ts';
export * from './health.ts';
export * from './intake-codec.ts';
export * from './intake-grpc-client.ts';
