import { join } from 'node:path';
import { openEmbeddedStore, type Store } from '@wirehook/store';

/**
 * How long a process that answers requests (the gateway, the portal, message-intake) lets a
 * MongoDB operation wait for a pooled connection, unless MONGODB_URL sets `waitQueueTimeoutMS`:
 * under a saturated pool a request answers 503 in 10 s rather than wait as long as its client
 * does. Not the dispatcher's: its completions wait rather than leave a webhook to be sent again.
 */
export const REQUEST_POOL_WAIT_MS = 10_000;

/**
 * The store a service's config names: MongoDB when MONGODB_URL is set, else the SQLite
 * file in DATA_DIR (shared by every process on the machine, as in `./dev start --cluster`).
 * `poolWaitMs`: MongoDB's wait for a pooled connection (REQUEST_POOL_WAIT_MS), unless the URL sets one.
 * `signal`: a stop asked while it opens (ServiceContext's), which ends a MongoDB layout upgrade
 * under way and gives its lease up.
 */
export async function openStore(
  config: { MONGODB_URL?: string | undefined; DATA_DIR: string },
  mongo: { poolWaitMs?: number; signal?: AbortSignal } = {},
): Promise<Store> {
  if (config.MONGODB_URL) {
    // Loaded only when used: embedded mode and SQLite clusters never load the driver.
    const { openMongoStore } = await import('@wirehook/store/mongo');
    return openMongoStore({ url: config.MONGODB_URL, ...mongo });
  }
  return openEmbeddedStore(config.DATA_DIR);
}

/** The store of a process that answers requests (the gateway, the portal, message-intake): MongoDB's pool wait bounded, REQUEST_POOL_WAIT_MS. */
export function openRequestStore(config: { MONGODB_URL?: string | undefined; DATA_DIR: string }, signal?: AbortSignal): Promise<Store> {
  return openStore(config, { poolWaitMs: REQUEST_POOL_WAIT_MS, ...(signal === undefined ? {} : { signal }) });
}

/** Where the SQLite store of a DATA_DIR lives (for messages to operators). */
export function describeStore(config: { MONGODB_URL?: string | undefined; DATA_DIR: string }): string {
  return config.MONGODB_URL ? 'MongoDB' : `SQLite in ${join(config.DATA_DIR)}`;
}
