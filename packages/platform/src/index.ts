export * from './config.ts';
export * from './lifecycle.ts';
export * from './logger.ts';
export * from './metrics.ts';
export * from './secret-key.ts';
