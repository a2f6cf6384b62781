export * from './address-class.ts';
export * from './address-policy.ts';
export * from './internal-host-name.ts';
export * from './url-policy.ts';
