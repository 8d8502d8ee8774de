import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalidRequest } from '../errors.ts';

/**
 * Which addresses a webhook may be sent to in production: public unicast only. Refused: loopback,
 * private (RFC 1918, unique-local), link-local, carrier-grade NAT, unspecified, multicast,
 * documentation/benchmark/reserved ranges, and IPv6 forms that embed such an IPv4 address
 * (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 64:ff9b::/96, 6to4 2002::/16). Parsing and matching are
 * node:net's (the same parser the socket uses), so no text form can be read differently here.
 */
const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const V6_BLOCKED: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 6145): never a public destination
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): never a public destination
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [address, bits] of V4_BLOCKED) {
  // BlockList also applies IPv4 rules to IPv4-mapped IPv6 addresses (::ffff:a.b.c.d).
  blocked.addSubnet(address, bits, 'ipv4');
  // NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::) carry the IPv4 address in fixed bits.
  blocked.addSubnet(`64:ff9b::${address}`, 96 + bits, 'ipv6');
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  blocked.addSubnet(`2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`, 16 + bits, 'ipv6');
}
for (const [address, bits] of V6_BLOCKED) blocked.addSubnet(address, bits, 'ipv6');

/** Whether `ip` (IPv4 or IPv6 text, an IPv6 zone id ignored) is a public unicast address a production webhook may reach. */
export function isPublicAddress(ip: string): boolean {
  const address = ip.split('%')[0]!;
  const version = isIP(address);
  if (version === 0) return false;
  return !blocked.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const resolveHostWithDns: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** `[::1]` → `::1`; other host names unchanged. */
export const bareHostname = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL for configuration: HTTPS, at most 2048 characters, no credentials; with
 * `allowPrivateAddresses` false (production) also that every address the host resolves to is
 * public. Throws 400 INVALID_REQUEST.
 */
export async function checkWebhookUrl(text: string, options: { allowPrivateAddresses: boolean; resolveHost: ResolveHost }): Promise<URL> {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw invalidRequest(`Invalid request: url: at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidRequest('Invalid request: url: not a valid URL');
  }
  if (url.protocol !== 'https:') throw invalidRequest('Invalid request: url: the webhook endpoint must be an HTTPS URL (HTTP is rejected)');
  if (url.username || url.password) throw invalidRequest('Invalid request: url: credentials in the URL are not accepted');
  if (!url.hostname) throw invalidRequest('Invalid request: url: a host is required');
  if (options.allowPrivateAddresses) return url;
  const host = bareHostname(url);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await options.resolveHost(host);
    } catch {
      throw invalidRequest(`Invalid request: url: the host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw invalidRequest(`Invalid request: url: the host ${host} does not resolve`);
  }
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) {
    throw invalidRequest(`Invalid request: url: the host resolves to a loopback, private or link-local address (${refused}), which is not allowed in production`);
  }
  return url;
}
