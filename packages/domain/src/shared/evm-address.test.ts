import { getAddress, isAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksumEvmAddress, isEvmAddressWithValidChecksum } from './evm-address.ts';

const randomAddress = () => `0x${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

describe('EIP-55 checksums', () => {
  it('match viem on random addresses, in every case', () => {
    for (let i = 0; i < 200; i++) {
      const lower = randomAddress();
      const checksummed = getAddress(lower);
      expect(checksumEvmAddress(lower)).toBe(checksummed);
      expect(checksumEvmAddress(lower.toUpperCase().replace('0X', '0x'))).toBe(checksummed);
      expect(isEvmAddressWithValidChecksum(checksummed)).toBe(true);
    }
  });

  it('refuses a mixed-case address with a wrong checksum, as viem does', () => {
    const good = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const bad = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4A';
    for (const address of [good, bad, good.toLowerCase(), `0x${good.slice(2).toUpperCase()}`, '0x1234', `${good}00`]) {
      expect(isEvmAddressWithValidChecksum(address), address).toBe(isAddress(address, { strict: true }));
    }
    expect(() => checksumEvmAddress('0x1234')).toThrow();
  });
});
