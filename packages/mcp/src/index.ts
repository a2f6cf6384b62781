export * from './tools.ts';
export * from './explain.ts';
