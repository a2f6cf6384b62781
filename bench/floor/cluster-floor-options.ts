// What the cluster floor's scenario (bench/scenarios/floor.ts) and its processes
// (cluster-floor-process.ts) agree on; apart, so the bench's report names the roles without
// loading a floor's code.
import type { FloorProcessOptions } from './floor-parts.ts';

/** What the cluster floor's scenario passes each of its processes (each reads what its role needs). */
export interface ClusterFloorOptions extends FloorProcessOptions {
  natsUrl: string;
  /** Intake's gRPC address (`127.0.0.1:<port>`): the gateway's. */
  intakeAddress?: string;
}

export const CLUSTER_FLOOR_ROLES = ['dispatcher', 'intake', 'gateway'] as const;
export type ClusterFloorRole = (typeof CLUSTER_FLOOR_ROLES)[number];
/** The cluster floor's SQLite file in its data directory (CLUSTER_FLOOR_SCHEMA). */
export const CLUSTER_FLOOR_FILE = 'cluster-floor.sqlite';
