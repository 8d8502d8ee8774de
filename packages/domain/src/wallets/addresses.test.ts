// Every address is checked with the chain's own library, never with our own code.
import { encodeSecp256k1Pubkey, pubkeyToAddress } from '@cosmjs/amino';
import { fromBech32 } from '@cosmjs/encoding';
import { Ed25519Keypair, Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519';
import { isValidSuiAddress } from '@mysten/sui/utils';
import { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey, isAddress as isSolanaAddress } from '@solana/kit';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { isAddress as isEvmAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../custody/keys.ts';
import { deriveAddress, formatPublicKey, isValidBech32Prefix } from './addresses.ts';

const ROUNDS = 25;
// cosmjs 0.39 fromBech32 defaults its length limit to Infinity, which @scure/base 2.x rejects
// ("limit: expected safe integer"); 90 is the BIP-173 maximum.
const BECH32_LIMIT = 90;

describe('EVM addresses', () => {
  it('match viem for generated keys', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = generateKey('DKLS');
      const address = deriveAddress('EVM', key.publicKey);
      expect(isEvmAddress(address, { strict: true })).toBe(true);
      const account = privateKeyToAccount(toHex(key.secret));
      expect(address).toBe(account.address);
      expect(formatPublicKey('EVM', key.publicKey)).toBe(account.publicKey);
    }
  });

  it('matches the well-known address of private key 1', () => {
    const secret = new Uint8Array(32);
    secret[31] = 1;
    const account = privateKeyToAccount(toHex(secret));
    const compressed = new Uint8Array(Buffer.from(account.publicKey.slice(2), 'hex'));
    expect(deriveAddress('EVM', compressed)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('rejects keys that are not secp256k1 points', () => {
    expect(() => deriveAddress('EVM', new Uint8Array(32))).toThrow();
    const bogus = new Uint8Array(33).fill(0xff);
    bogus[0] = 0x02;
    expect(() => deriveAddress('EVM', bogus)).toThrow('not a valid secp256k1 public key');
  });
});

describe('COSMOS addresses', () => {
  it.each(['cosmos', 'osmo', 'celestia', 'inj'])('match cosmjs for prefix %s', (prefix) => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = generateKey('DKLS');
      const address = deriveAddress('COSMOS', key.publicKey, prefix);
      const decoded = fromBech32(address, BECH32_LIMIT);
      expect(decoded.prefix).toBe(prefix);
      expect(decoded.data.length).toBe(20);
      expect(address).toBe(pubkeyToAddress(encodeSecp256k1Pubkey(key.publicKey), prefix));
      expect(Buffer.from(formatPublicKey('COSMOS', key.publicKey), 'hex').toString('base64')).toBe(
        encodeSecp256k1Pubkey(key.publicKey).value,
      );
    }
  });

  it('defaults to the cosmos prefix and rejects invalid prefixes', () => {
    const key = generateKey('DKLS');
    expect(fromBech32(deriveAddress('COSMOS', key.publicKey), BECH32_LIMIT).prefix).toBe('cosmos');
    expect(() => deriveAddress('COSMOS', key.publicKey, 'Cosmos')).toThrow('invalid bech32 prefix');
    expect(() => deriveAddress('COSMOS', key.publicKey, '')).toThrow('invalid bech32 prefix');
  });

  it('validates bech32 prefixes strictly', () => {
    for (const ok of ['cosmos', 'osmo', 'c4e', 'a', 'abcdefghijklmnopqrst']) expect(isValidBech32Prefix(ok)).toBe(true);
    for (const bad of ['', 'Cosmos', '4cosmos', 'cos mos', 'cosmos!', 'abcdefghijklmnopqrstu', 'ö']) {
      expect(isValidBech32Prefix(bad)).toBe(false);
    }
  });
});

describe('SOLANA addresses', () => {
  it('match @solana/kit', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = generateKey('ED25519');
      const address = deriveAddress('SOLANA', key.publicKey);
      expect(isSolanaAddress(address)).toBe(true);
      const pair = await createKeyPairFromPrivateKeyBytes(key.secret);
      expect(address).toBe(await getAddressFromPublicKey(pair.publicKey));
      expect(formatPublicKey('SOLANA', key.publicKey)).toBe(address);
    }
  });

  it('encodes leading zero bytes as 1s', () => {
    expect(deriveAddress('SOLANA', new Uint8Array(32))).toBe('11111111111111111111111111111111');
    const key = new Uint8Array(32);
    key[31] = 1;
    expect(isSolanaAddress(deriveAddress('SOLANA', key))).toBe(true);
    expect(deriveAddress('SOLANA', key)).toBe('11111111111111111111111111111112');
  });
});

describe('STELLAR addresses', () => {
  it('match the Stellar SDK', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = generateKey('ED25519');
      const address = deriveAddress('STELLAR', key.publicKey);
      expect(address.startsWith('G')).toBe(true);
      expect(StrKey.isValidEd25519PublicKey(address)).toBe(true);
      expect(address).toBe(Keypair.fromRawEd25519Seed(Buffer.from(key.secret)).publicKey());
      expect(formatPublicKey('STELLAR', key.publicKey)).toBe(address);
    }
  });
});

describe('SUI addresses', () => {
  it('match @mysten/sui', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = generateKey('ED25519');
      const address = deriveAddress('SUI', key.publicKey);
      expect(isValidSuiAddress(address)).toBe(true);
      expect(address).toMatch(/^0x[0-9a-f]{64}$/);
      const keypair = Ed25519Keypair.fromSecretKey(key.secret);
      expect(address).toBe(keypair.toSuiAddress());
      const formatted = formatPublicKey('SUI', key.publicKey);
      expect(formatted).toBe(keypair.getPublicKey().toBase64());
      expect(new Ed25519PublicKey(formatted).toSuiAddress()).toBe(address);
    }
  });
});

describe('input checks', () => {
  it('rejects public keys of the wrong scheme', () => {
    const ed = generateKey('ED25519').publicKey;
    const k1 = generateKey('DKLS').publicKey;
    expect(() => deriveAddress('EVM', ed)).toThrow();
    expect(() => deriveAddress('COSMOS', ed)).toThrow();
    for (const type of ['SOLANA', 'STELLAR', 'SUI'] as const) {
      expect(() => deriveAddress(type, k1)).toThrow('ed25519 public key must be 32 bytes');
    }
  });
});
