export * from './message-intake.ts';
export * from './create-intake.ts';
