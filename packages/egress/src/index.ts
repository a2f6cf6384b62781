export * from './address-class.ts';
export * from './address-policy.ts';
export * from './egress-error.ts';
export * from './http-egress.ts';
export * from './internal-host-name.ts';
export * from './url-policy.ts';
export * from './resolve-overrides.ts';
export type { SourceAddresses } from './guarded-connector.ts';
export * from './listen-hub.ts';
