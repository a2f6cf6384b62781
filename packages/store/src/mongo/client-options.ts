import type { MongoClientOptions } from 'mongodb';
import { WRITTEN_BY_MAJORITY } from './connection.ts';

/**
 * The MongoClient's options for `url`. Writes that pin no write concern are acknowledged by a
 * majority within MAJORITY_WAIT_MS (connection.ts), unless the connection string says its own
 * `w` or `wtimeoutMS` (each kept as it says: options given here would override the string's).
 */
export function clientOptions(url: string, monitorCommands: boolean): MongoClientOptions {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const named = new Set(query.split('&').map((pair) => decodeURIComponent(pair.split('=')[0] ?? '').toLowerCase()));
  return {
    // ignoreUndefined: an absent optional field is left out, as JSON.stringify does for SQLite.
    ignoreUndefined: true,
    appName: 'wirehook',
    monitorCommands,
    ...(named.has('w') ? {} : { w: WRITTEN_BY_MAJORITY.w }),
    ...(named.has('wtimeoutms') ? {} : { wtimeoutMS: WRITTEN_BY_MAJORITY.wtimeoutMS }),
  };
}
