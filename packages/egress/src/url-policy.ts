import { isIP } from 'node:net';
import { InvalidError } from '@wirehook/core';
import { describeAddress } from './address-class.ts';
import type { AddressPolicy } from './address-policy.ts';
import { isInternalHostName } from './internal-host-name.ts';
import { resolveHost, systemLookup, type LookupFn, type ResolvedAddress } from './resolve-host.ts';

export { systemLookup, type LookupFn, type ResolvedAddress } from './resolve-host.ts';

/** What the host check needs. */
export interface UrlPolicyDeps {
  policy: AddressPolicy;
  /** Default {@link systemLookup}. */
  lookup?: LookupFn | undefined;
  /** How long resolution may take before the host is refused. Default 2000. */
  timeoutMs?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 2000;

/**
 * Checks an endpoint URL's host against the delivery rules (spec, endpoint create rule 2).
 * The scheme and port are checked elsewhere. Throws InvalidError, naming the host and the
 * rule, when the host is a raw IP address not in the allow list, an internal host name
 * not in the allow list, does not resolve (in time), or resolves to any address that is
 * not public and not allowed.
 */
export async function checkEndpointUrl(url: string, deps: UrlPolicyDeps): Promise<void> {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    throw new InvalidError('url is not a valid URL');
  }
  await checkHost(hostname, deps);
}

/**
 * The host half of {@link checkEndpointUrl}, for a URL's `hostname` (IPv6 in brackets).
 * Returns the checked addresses, so a caller can connect to exactly those (no second
 * lookup that DNS rebinding could answer differently). Throws as checkEndpointUrl does.
 */
export async function checkHost(hostname: string, deps: UrlPolicyDeps): Promise<ResolvedAddress[]> {
  const { policy } = deps;
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  if (family !== 0) {
    if (policy.isListedAddress(bare)) return [{ address: bare, family }];
    throw new InvalidError(`url host ${hostname} is a raw IP address; endpoint URLs must use a public host name`);
  }
  const nameAllowed = policy.isAllowedHostName(bare);
  if (isInternalHostName(bare) && !nameAllowed) {
    throw new InvalidError(`url host "${bare}" is an internal host name; endpoint URLs must use a public host name`);
  }
  const addresses = await resolve(bare, deps);
  // A listed name is trusted whatever it resolves to (e.g. localhost in tests).
  if (nameAllowed) return addresses;
  for (const { address } of addresses) {
    if (!policy.isAllowedAddress(address)) {
      throw new InvalidError(`url host "${bare}" resolves to ${address}, ${describeAddress(address)}; endpoint URLs must resolve only to public addresses`);
    }
  }
  return addresses;
}

async function resolve(host: string, deps: UrlPolicyDeps): Promise<ResolvedAddress[]> {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const outcome = await resolveHost(host, deps.lookup ?? systemLookup, timeoutMs);
  if (outcome.kind === 'timeout') {
    throw new InvalidError(`url host "${host}" did not resolve within ${timeoutMs / 1000} s`);
  }
  if (outcome.kind === 'failed') {
    const detail = outcome.code === undefined || outcome.code === 'ENOTFOUND' ? '' : ` (${outcome.code})`;
    throw new InvalidError(`url host "${host}" does not resolve${detail}`);
  }
  return outcome.addresses;
}
