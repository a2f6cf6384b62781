export * from './store.ts';
export * from './message-ports.ts';
export { MIGRATIONS, migrate, schemaVersion } from './sqlite/migrations.ts';
export { openEmbeddedStore } from './sqlite/open-embedded-store.ts';
export {
  openSqliteStore,
  SQLITE_BUSY_TIMEOUT_MS,
  SQLITE_FILE_NAME,
  type SqliteStore,
  type SqliteStoreOptions,
} from './sqlite/open-sqlite-store.ts';
