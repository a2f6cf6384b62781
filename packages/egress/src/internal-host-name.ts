import { normalizeHostName } from './address-policy.ts';

// Suffixes used only inside private networks (RFC 6761, RFC 6762, RFC 8375, ICANN's
// .internal, Kubernetes service names) and common by convention (.corp, .lan, ...).
const INTERNAL_SUFFIXES = ['localhost', 'local', 'cluster.local', 'svc', 'internal', 'intranet', 'lan', 'home.arpa', 'corp', 'localdomain'] as const;

/**
 * True for host names that only make sense inside a private network: `localhost` and
 * `*.localhost`, single-label names (no dot), and names under the internal suffixes
 * above. Case-insensitive; one trailing dot is ignored. Meant for names, not IP literals.
 */
export function isInternalHostName(host: string): boolean {
  const name = normalizeHostName(host);
  if (!name.includes('.')) return true;
  return INTERNAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}
