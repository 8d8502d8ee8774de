import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { deriveAddress, formatPublicKey } from '../wallets/addresses.ts';
import { frostGroupKey } from './group-key.ts';

describe('frostGroupKey', () => {
  for (const type of ['SOLANA', 'STELLAR', 'SUI'] as const) {
    it(`${type}: the stored key, checked against the address every time (also once remembered)`, () => {
      const key = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
      const wallet = { type, address: deriveAddress(type, key), publicKey: formatPublicKey(type, key) };
      expect(frostGroupKey(wallet)).toEqual(key);
      const first = frostGroupKey(wallet);
      first.fill(0); // a caller's copy: wiping it changes nothing remembered
      expect(frostGroupKey(wallet)).toEqual(key);
      const other = deriveAddress(type, ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
      expect(() => frostGroupKey({ ...wallet, address: other })).toThrow(/not derived from its public key/);
      expect(() => frostGroupKey({ ...wallet, publicKey: undefined })).toThrow(/no stored public key/);
    });
  }
});
