import { isIPv4, isIPv6 } from 'node:net';

/** Why a value is not a target {@link isGrpcTarget} takes: the error of a config variable that must be one. */
export const GRPC_TARGET_ERROR =
  'must be a gRPC target: host:port or dns:///host:port (calls spread over every address the name resolves to: name a headless Service), ' +
  'or ipv4:a.b.c.d:port,a.b.c.d:port';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Whether `target` is an address our gRPC clients take (ClientOptions.address): `host:port`
 * or `dns:///host:port` (host a name, an IPv4 address or `[v6]`), or a fixed list of
 * addresses, `ipv4:a.b.c.d:port,…` or `ipv6:[v6]:port,…` (grpc-js' own schemes). The port
 * is required: grpc-js would otherwise pick 443.
 */
export function isGrpcTarget(target: string): boolean {
  if (target.startsWith('ipv4:')) return list(target.slice(5), (host) => isIPv4(host));
  if (target.startsWith('ipv6:')) return list(target.slice(5), (host) => /^\[.*\]$/.test(host) && isIPv6(host.slice(1, -1)));
  const hostPort = target.startsWith('dns:///') ? target.slice(7) : target;
  return withPort(hostPort, (host) => HOSTNAME.test(host) || isIPv4(host) || (/^\[.*\]$/.test(host) && isIPv6(host.slice(1, -1))));
}

function list(addresses: string, hostOk: (host: string) => boolean): boolean {
  return addresses.split(',').every((address) => withPort(address, hostOk));
}

function withPort(address: string, hostOk: (host: string) => boolean): boolean {
  const match = /^(?<host>.+):(?<port>\d{1,5})$/.exec(address);
  if (!match?.groups) return false;
  const port = Number(match.groups['port']);
  return port >= 1 && port <= 65_535 && hostOk(match.groups['host']!);
}
