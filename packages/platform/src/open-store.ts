import { join } from 'node:path';
import { openEmbeddedStore, type Store } from '@wirehook/store';

/**
 * The store a service's config names: MongoDB when MONGODB_URL is set, else the SQLite
 * file in DATA_DIR (shared by every process on the machine, as in `./dev start --cluster`).
 */
export async function openStore(config: { MONGODB_URL?: string | undefined; DATA_DIR: string }): Promise<Store> {
  if (config.MONGODB_URL) {
    // Loaded only when used: embedded mode and SQLite clusters never load the driver.
    const { openMongoStore } = await import('@wirehook/store/mongo');
    return openMongoStore({ url: config.MONGODB_URL });
  }
  return openEmbeddedStore(config.DATA_DIR);
}

/** Where the SQLite store of a DATA_DIR lives (for messages to operators). */
export function describeStore(config: { MONGODB_URL?: string | undefined; DATA_DIR: string }): string {
  return config.MONGODB_URL ? 'MongoDB' : `SQLite in ${join(config.DATA_DIR)}`;
}
