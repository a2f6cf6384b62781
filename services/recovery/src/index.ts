export * from './create-recovery.ts';
export * from './recovery-service.ts';
export * from './recovery-worker.ts';
export * from './grpc-server.ts';
