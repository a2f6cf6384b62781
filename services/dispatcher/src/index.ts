export * from './create-dispatcher.ts';
export * from './dispatcher.ts';
export * from './metrics.ts';
export * from './outcome.ts';
export * from './retention-job.ts';
export * from './signing-keys.ts';
export * from './webhook-request.ts';
export * from './endpoint-walk-job.ts';
