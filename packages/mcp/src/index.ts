export * from './tools.ts';
export * from './explain.ts';
export * from './http-api.ts';
