/**
 * EIP-55 checksums without viem: configuration parsing runs on every CLI start, where loading viem
 * costs about a second (under tsx) for two address checks.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 form of a 0x-prefixed, 40-hex-digit address (any case in). */
export function checksumEvmAddress(address: string): string {
  if (!HEX_ADDRESS.test(address)) throw new Error(`not an EVM address: ${address}`);
  const lower = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/** 0x and 40 hex digits, all lower case or with a valid checksum (viem's strict `isAddress`). */
export function isEvmAddressWithValidChecksum(address: string): boolean {
  if (!HEX_ADDRESS.test(address)) return false;
  return address === address.toLowerCase() || checksumEvmAddress(address) === address;
}
