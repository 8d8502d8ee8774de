/**
 * Address derivation and public-key formatting per wallet type.
 *
 * Addresses:
 * - EVM: EIP-55 checksummed `0x` + 40 hex, the last 20 bytes of keccak256 of the uncompressed
 *   secp256k1 point (without the 0x04 prefix).
 * - COSMOS: bech32(prefix, ripemd160(sha256(33-byte compressed key))); prefix default `cosmos`.
 * - SOLANA: base58 of the 32-byte ed25519 key.
 * - STELLAR: StrKey account id (`G...`): base32(0x30 || key || crc16-xmodem LE).
 * - SUI: `0x` + 64 hex of blake2b-256(0x00 || 32-byte ed25519 key) (0x00 = ed25519 flag).
 *
 * Public keys (`publicKey` field of the wallet; the form each chain's tooling expects):
 * - EVM: `0x04...` uncompressed 65-byte point, hex (as viem's `account.publicKey`).
 * - COSMOS: 33-byte compressed point, lowercase hex without `0x`.
 * - SOLANA: base58 of the 32 bytes (identical to the address).
 * - STELLAR: `G...` StrKey (identical to the address).
 * - SUI: standard base64 of the raw 32 bytes (without the scheme flag byte that
 *   `toSuiPublicKey()` prepends; `new Ed25519PublicKey(base64)` reads this form).
 *
 * Everything here is pure and synchronous; decompression uses Node's OpenSSL, hashing Node or
 * @noble/hashes, the small encoders (base58, base32, hex) are local, so a derivation costs tens of
 * microseconds. Only structure is checked for secp256k1 keys on COSMOS (prefix byte, length);
 * EVM validates the point while decompressing.
 */
import { ECDH, createHash } from 'node:crypto';
import { toBech32 } from '@cosmjs/encoding';
import { blake2b } from '@noble/hashes/blake2.js';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

export type WalletType = 'EVM' | 'COSMOS' | 'SOLANA' | 'STELLAR' | 'SUI';

export const DEFAULT_COSMOS_PREFIX = 'cosmos';

/**
 * Strict, simple bech32 human-readable-part check: 1 to 20 characters, lowercase ASCII letters
 * and digits only, starting with a letter (the same rule as the wallet creation schema). This is
 * a subset of what BIP-173 allows (1-83 chars of ASCII 33-126); every Cosmos SDK chain prefix in
 * use fits it, and it keeps addresses far below the 90-character bech32 limit.
 */
export function isValidBech32Prefix(prefix: string): boolean {
  return /^[a-z][a-z0-9]{0,19}$/.test(prefix);
}

export function deriveAddress(type: WalletType, publicKey: Uint8Array, cosmosPrefix?: string): string {
  switch (type) {
    case 'EVM':
      return evmAddress(publicKey);
    case 'COSMOS': {
      const prefix = cosmosPrefix ?? DEFAULT_COSMOS_PREFIX;
      if (!isValidBech32Prefix(prefix)) throw new Error('invalid bech32 prefix');
      return toBech32(prefix, ripemd160(sha256(compressedSecp256k1(publicKey))));
    }
    case 'SOLANA':
      return base58(ed25519Key(publicKey));
    case 'STELLAR':
      return stellarAccountId(ed25519Key(publicKey));
    case 'SUI': {
      const input = new Uint8Array(33);
      input.set(ed25519Key(publicKey), 1); // input[0] = 0x00, the ed25519 scheme flag
      return `0x${hex(blake2b(input, { dkLen: 32 }))}`;
    }
    default:
      throw new Error(`unsupported wallet type ${String(type)}`);
  }
}

export function formatPublicKey(type: WalletType, publicKey: Uint8Array): string {
  switch (type) {
    case 'EVM':
      return `0x${hex(uncompressedSecp256k1(publicKey))}`;
    case 'COSMOS':
      return hex(compressedSecp256k1(publicKey));
    case 'SOLANA':
      return base58(ed25519Key(publicKey));
    case 'STELLAR':
      return stellarAccountId(ed25519Key(publicKey));
    case 'SUI':
      return Buffer.from(ed25519Key(publicKey)).toString('base64');
    default:
      throw new Error(`unsupported wallet type ${String(type)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

function ed25519Key(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== 32) throw new Error('an ed25519 public key must be 32 bytes');
  return publicKey;
}

export function compressedSecp256k1(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length === 33 && (publicKey[0] === 0x02 || publicKey[0] === 0x03)) return publicKey;
  if (publicKey.length === 65 && publicKey[0] === 0x04) return convert(publicKey, 'compressed');
  throw new Error('a secp256k1 public key must be 33 bytes compressed (or 65 bytes uncompressed)');
}

function uncompressedSecp256k1(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length === 33 && (publicKey[0] === 0x02 || publicKey[0] === 0x03)) return convert(publicKey, 'uncompressed');
  if (publicKey.length === 65 && publicKey[0] === 0x04) return convert(publicKey, 'uncompressed'); // validates the point
  throw new Error('a secp256k1 public key must be 33 bytes compressed (or 65 bytes uncompressed)');
}

function convert(publicKey: Uint8Array, format: 'compressed' | 'uncompressed'): Uint8Array {
  try {
    return ECDH.convertKey(publicKey, 'secp256k1', undefined, undefined, format) as Buffer;
  } catch {
    throw new Error('not a valid secp256k1 public key');
  }
}

// ---------------------------------------------------------------------------------------------
// EVM
// ---------------------------------------------------------------------------------------------

function evmAddress(publicKey: Uint8Array): string {
  const point = uncompressedSecp256k1(publicKey);
  const lower = hex(keccak_256(point.subarray(1)).subarray(12));
  const hash = keccak_256(Buffer.from(lower, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += c >= 'a' && nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hashes and encoders
// ---------------------------------------------------------------------------------------------

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function sha256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

/** RIPEMD-160 from OpenSSL when its provider offers it, @noble/hashes otherwise. */
const ripemd160: (data: Uint8Array) => Uint8Array = (() => {
  try {
    createHash('ripemd160').update(new Uint8Array(1)).digest();
    return (data: Uint8Array) => createHash('ripemd160').update(data).digest();
  } catch {
    return (data: Uint8Array) => nobleRipemd160(data);
  }
})();

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // log(256) / log(58) < 1.366: upper bound of the number of base58 digits.
  const digits = new Uint8Array(Math.ceil((bytes.length - zeros) * 1.366) + 1);
  let length = 0;
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    let j = 0;
    for (let k = digits.length - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 256 * digits[k]!;
      digits[k] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    length = j;
  }
  let out = '1'.repeat(zeros);
  for (let k = digits.length - length; k < digits.length; k++) out += BASE58_ALPHABET[digits[k]!];
  return out;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const STELLAR_ACCOUNT_VERSION = 6 << 3; // 'G'

function crc16xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function stellarAccountId(key: Uint8Array): string {
  const payload = new Uint8Array(35);
  payload[0] = STELLAR_ACCOUNT_VERSION;
  payload.set(key, 1);
  const crc = crc16xmodem(payload.subarray(0, 33));
  payload[33] = crc & 0xff;
  payload[34] = crc >> 8;
  // 35 bytes = 280 bits = exactly 56 base32 characters, no padding.
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of payload) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}
