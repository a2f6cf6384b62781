export * from './bus.ts';
export * from './memory-bus.ts';
export * from './subjects.ts';
