export * from './message-intake.ts';
