// The addresses fixed_ip endpoints are sent from (GET /v1/egress-ips), as Wirehook lists them.

/**
 * How long an address taken out of the fixed IP pool (RELAY_SOURCE_IPS) stays listed, with
 * its `retiring_at`, after the change is first seen: the notice customers get to update
 * their allowlists.
 */
export const EGRESS_IP_NOTICE_MS = 30 * 24 * 60 * 60 * 1000;

/** One listed address: in the pool (`retiringAt` null), or taken out and listed until `retiringAt`. */
export interface EgressAddress {
  ip: string;
  family: 4 | 6;
  retiringAt: number | null;
}
