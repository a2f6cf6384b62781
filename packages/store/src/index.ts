export * from './store.ts';
export * from './ports/alert-settings-port.ts';
export * from './ports/api-key-port.ts';
export * from './ports/consumer-port.ts';
export * from './ports/delivery-port.ts';
export * from './ports/endpoint-port.ts';
export * from './ports/endpoint-stats-port.ts';
export * from './ports/egress-ip-port.ts';
export * from './ports/event-type-port.ts';
export * from './ports/job-lease-port.ts';
export * from './ports/message-port.ts';
export * from './ports/org-port.ts';
export * from './ports/portal-token-port.ts';
export * from './ports/recovery-port.ts';
export * from './ports/sealing-port.ts';
export { MIGRATIONS, migrate, schemaVersion } from './sqlite/migrations.ts';
export { openEmbeddedStore } from './sqlite/open-embedded-store.ts';
export {
  openSqliteStore,
  SQLITE_BUSY_TIMEOUT_MS,
  SQLITE_FILE_NAME,
  type SqliteStore,
  type SqliteStoreOptions,
} from './sqlite/open-sqlite-store.ts';
