// The SQLite store's repos, one per port, in one list: the store on a connection builds them
// from it (reposOn), and the threaded store reads their methods from it to forward calls.
import type { Store } from '../store.ts';
import { SqliteAlertSettingsRepo } from './alert-settings-repo.ts';
import { SqliteApiKeyRepo } from './api-key-repo.ts';
import type { SqliteConnection } from './connection.ts';
import { SqliteConsumerRepo } from './consumer-repo.ts';
import { SqliteDeliveryRepo } from './delivery-repo.ts';
import { SqliteEgressIpRepo } from './egress-ip-repo.ts';
import { SqliteEndpointRepo } from './endpoint-repo.ts';
import { SqliteEndpointStatsRepo } from './endpoint-stats-repo.ts';
import { SqliteEventTypeRepo } from './event-type-repo.ts';
import { SqliteJobLeaseRepo } from './job-lease-repo.ts';
import { SqliteMessageRepo } from './message-repo.ts';
import { SqliteOrgRepo } from './org-repo.ts';
import { SqlitePortalTokenRepo } from './portal-token-repo.ts';
import { SqliteRecoveryRepo } from './recovery-repo.ts';
import { SqliteSealingRepo } from './sealing-repo.ts';

type Repos = Omit<Store, 'close'>;

/** Each port of the Store and the class that implements it on a connection (the type checks none is missing). */
export const SQLITE_REPOS = {
  orgs: SqliteOrgRepo,
  apiKeys: SqliteApiKeyRepo,
  consumers: SqliteConsumerRepo,
  endpoints: SqliteEndpointRepo,
  eventTypes: SqliteEventTypeRepo,
  messages: SqliteMessageRepo,
  deliveries: SqliteDeliveryRepo,
  sealing: SqliteSealingRepo,
  recoveries: SqliteRecoveryRepo,
  portalTokens: SqlitePortalTokenRepo,
  alerts: SqliteAlertSettingsRepo,
  jobs: SqliteJobLeaseRepo,
  endpointStats: SqliteEndpointStatsRepo,
  egressIps: SqliteEgressIpRepo,
} as const satisfies { [K in keyof Repos]: new (conn: SqliteConnection) => Repos[K] };

export type RepoName = keyof typeof SQLITE_REPOS;

/** Every repo of the store on one connection. */
export function reposOn(conn: SqliteConnection): Repos {
  return Object.fromEntries(Object.entries(SQLITE_REPOS).map(([name, Repo]) => [name, new Repo(conn)])) as unknown as Repos;
}
