import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalidRequest } from '../errors.ts';

/**
 * Which addresses a webhook may be sent to in production: public unicast only. Refused: loopback,
 * private (RFC 1918, unique-local), link-local, carrier-grade NAT, unspecified, multicast,
 * documentation/benchmark/reserved ranges, and IPv6 forms that embed such an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16).
 */
const V4_BLOCKED: Array<[number[], number]> = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
];

const V6_BLOCKED: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

function matches(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

function ipv4Bytes(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (zone id dropped, embedded dotted IPv4 tail allowed). */
export function ipv6Bytes(ip: string): number[] | null {
  let text = ip.split('%')[0]!.toLowerCase();
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = ipv4Bytes(tail[2]!);
    if (!v4) return null;
    text = `${tail[1]}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const V6_BLOCKED_BYTES = V6_BLOCKED.map(([ip, bits]) => [ipv6Bytes(ip)!, bits] as const);

function isPublicV4(bytes: number[]): boolean {
  return !V4_BLOCKED.some(([prefix, bits]) => matches(bytes, prefix, bits));
}

/** Whether `ip` (IPv4 or IPv6 text) is a public unicast address a production webhook may reach. */
export function isPublicAddress(ip: string): boolean {
  const v4 = ipv4Bytes(ip);
  if (v4) return isPublicV4(v4);
  const v6 = ipv6Bytes(ip);
  if (!v6) return false;
  if (V6_BLOCKED_BYTES.some(([prefix, bits]) => matches(v6, prefix, bits))) return false;
  // Forms that carry an IPv4 address: judge that address.
  const zero = (from: number, to: number) => v6.slice(from, to).every((b) => b === 0);
  if (zero(0, 10) && v6[10] === 0xff && v6[11] === 0xff) return isPublicV4(v6.slice(12)); // ::ffff:a.b.c.d
  if (zero(0, 12)) return false; // ::a.b.c.d (deprecated IPv4-compatible)
  if (matches(v6, ipv6Bytes('64:ff9b::')!, 96) || matches(v6, ipv6Bytes('64:ff9b:1::')!, 48)) return isPublicV4(v6.slice(12));
  if (v6[0] === 0x20 && v6[1] === 0x02) return isPublicV4(v6.slice(2, 6)); // 6to4
  return true;
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
