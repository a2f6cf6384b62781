export * from './alerting-worker.ts';
export * from './create-alerting.ts';
export * from './failure-throttle.ts';
export * from './notice-content.ts';
export * from './notice-sender.ts';
export * from './config.ts';
