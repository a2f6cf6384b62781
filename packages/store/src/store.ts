import type { AlertSettingsRepo } from './ports/alert-settings-port.ts';
import type { ApiKeyRepo } from './ports/api-key-port.ts';
import type { ConsumerRepo } from './ports/consumer-port.ts';
import type { DeliveryRepo } from './ports/delivery-port.ts';
import type { EndpointRepo } from './ports/endpoint-port.ts';
import type { EgressIpRepo } from './ports/egress-ip-port.ts';
import type { EndpointStatsRepo } from './ports/endpoint-stats-port.ts';
import type { EventTypeRepo } from './ports/event-type-port.ts';
import type { JobLeaseRepo } from './ports/job-lease-port.ts';
import type { MessageRepo } from './ports/message-port.ts';
import type { OrgRepo } from './ports/org-port.ts';
import type { PortalTokenRepo } from './ports/portal-token-port.ts';
import type { RecoveryRepo } from './ports/recovery-port.ts';
import type { SealingRepo } from './ports/sealing-port.ts';

// The Store port. Every tenant-owned call takes the Tenant first, and adapters build their
// queries from it, so a key of one org or environment can never reach another's records.
// Adapters throw the core error types for the outcomes the API reports (ConflictError,
// InvalidError); anything else is a fault.
// Each repository port lives in ports/, named after what it holds.

/** Everything Wirehook keeps. One adapter per database; all pass the same contract suite. */
export interface Store {
  readonly orgs: OrgRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly consumers: ConsumerRepo;
  readonly endpoints: EndpointRepo;
  readonly eventTypes: EventTypeRepo;
  readonly messages: MessageRepo;
  readonly deliveries: DeliveryRepo;
  readonly sealing: SealingRepo;
  readonly recoveries: RecoveryRepo;
  readonly portalTokens: PortalTokenRepo;
  readonly alerts: AlertSettingsRepo;
  readonly jobs: JobLeaseRepo;
  readonly endpointStats: EndpointStatsRepo;
  readonly egressIps: EgressIpRepo;
  /**
   * The writes of a moment are committed, and answered, together (SQLite's group commit): a
   * moment's completions free their places at once, so a dispatcher's sweep refills sooner
   * (DueSweep's refillAt). Absent: each write is answered alone (MongoDB).
   */
  readonly groupsWrites?: boolean;
  close(): Promise<void>;
}
