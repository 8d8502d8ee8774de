import { BlockList, isIP } from 'node:net';
import { invalidRequest } from '../errors.ts';

interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address (a /32 or /128). */
export function parseCidr(entry: string): Cidr | null {
  const [address = '', prefixText, ...rest] = entry.trim().split('/');
  const version = isIP(address);
  if (rest.length > 0 || version === 0) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function validateAllowlist(entries: string[]): string[] {
  return entries.map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw invalidRequest(`Invalid request: ipAllowlist: ${JSON.stringify(entry)} is not an IPv4 or IPv6 CIDR`);
    return `${cidr.address}/${cidr.prefix}`;
  });
}

const compiled = new Map<string, BlockList>();

/** True when the list is empty (no restriction) or the address falls in one of its ranges. */
export function isAllowed(allowlist: string[], remoteAddress: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  if (!remoteAddress) return false;
  const cacheKey = allowlist.join(',');
  let list = compiled.get(cacheKey);
  if (!list) {
    list = new BlockList();
    for (const entry of allowlist) {
      const cidr = parseCidr(entry);
      if (cidr) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(cacheKey, list);
  }
  // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  const address = mapped?.[1] ?? remoteAddress;
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  return list.check(address, family);
}
