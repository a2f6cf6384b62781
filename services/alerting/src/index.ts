export * from './alerting-worker.ts';
export * from './create-alerting.ts';
export * from './decide.ts';
export * from './notice-outbox.ts';
export * from './failure-throttle.ts';
export * from './notice-content.ts';
export * from './notice-sender.ts';
export * from './config.ts';
