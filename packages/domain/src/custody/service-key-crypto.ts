/**
 * The service keys' key material (inside the key vault only): generation sealed under the current
 * `service` KEK with `service-key:<purpose>:<chainId>:<address>` as associated data, and one
 * signature per opening, the key wiped afterwards; it never leaves this module, nor appears in an
 * error. A relayer transaction is parsed and hashed here, not taken as a digest.
 */
import { createECDH } from 'node:crypto';
import { getAddress, keccak256, parseTransaction, serializeTransaction, toHex, type Address, type Hex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { signSecp256k1 } from '../signing/secp256k1.ts';
import { openUnderKek, sealUnderKek } from './kek-seal.ts';
import { checkServiceKey, type ServiceKeyPurpose, type ServiceKeyRow } from './service-keys.ts';
import { wipe, type KekProvider } from './types.ts';
import type { ServiceKeySignRequest, ServiceKeySignResult } from './vault.ts';

const OPEN_FAILED = 'service key cannot be decrypted';
const associatedData = (row: Pick<ServiceKeyRow, 'purpose' | 'chainId' | 'address'>) => `service-key:${row.purpose}:${row.chainId}:${row.address}`;

/** A fresh secp256k1 key sealed under the current service KEK; the plaintext is wiped before this returns. */
export function generateServiceKey(keks: KekProvider, purpose: ServiceKeyPurpose, chainId: number, now: Date): ServiceKeyRow {
  checkServiceKey(purpose, chainId);
  const ecdh = createECDH('secp256k1');
  ecdh.generateKeys();
  const raw = ecdh.getPrivateKey();
  // OpenSSL drops leading zero bytes (~1 key in 256).
  const secret = new Uint8Array(32);
  secret.set(raw, 32 - raw.length);
  raw.fill(0);
  try {
    const address = addressOf(secret);
    const kek = keks.current('service');
    const { iv, ciphertext } = sealUnderKek(kek, associatedData({ purpose, chainId, address }), secret);
    return { purpose, chainId, address, kekId: kek.id, iv, encryptedPrivateKey: ciphertext, createdAt: new Date(now.getTime()) };
  } finally {
    wipe(secret);
  }
}

/** Opens the key and checks it is the one of the row's address; any failure is one plain Error. The caller wipes the result. */
function openServiceKey(keks: KekProvider, row: ServiceKeyRow): Uint8Array {
  let secret: Uint8Array | undefined;
  try {
    secret = openUnderKek(keks.byId(row.kekId), associatedData(row), row.iv, row.encryptedPrivateKey);
    if (addressOf(secret) !== row.address) throw new Error('address mismatch');
    return secret;
  } catch {
    wipe(secret);
    throw new Error(OPEN_FAILED);
  }
}

function addressOf(secret: Uint8Array): Address {
  const ecdh = createECDH('secp256k1');
  // A view, not a copy, so no extra copy of the secret is left behind.
  ecdh.setPrivateKey(Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength));
  return getAddress(publicKeyToAddress(toHex(ecdh.getPublicKey(null, 'uncompressed'))));
}

/** r || s || v (v = 27 + yParity) as 0x hex, and its parts. */
function signDigest(digest: Uint8Array, secret: Uint8Array) {
  const { signature, recoveryId } = signSecp256k1(digest, secret);
  const bytes = new Uint8Array(65);
  bytes.set(signature);
  bytes[64] = 27 + recoveryId;
  return { signature: toHex(bytes), r: toHex(signature.subarray(0, 32)), s: toHex(signature.subarray(32, 64)), yParity: recoveryId };
}

function hashBytes(hash: Hex): Uint8Array {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error('a service key signs exactly one 32-byte hash (0x and 64 hex digits)');
  return Uint8Array.from(Buffer.from(hash.slice(2), 'hex'));
}

const EIP191_RAW_PREFIX = Buffer.from('\x19Ethereum Signed Message:\n32', 'utf8');

const hexToDigest = (hex: Hex) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

/** One signature with the row's key; a key sealed under a retired KEK comes back sealed under the current one too. */
export function signWithServiceKeyRow(keks: KekProvider, row: ServiceKeyRow, request: ServiceKeySignRequest): ServiceKeySignResult {
  checkServiceKey(row.purpose, row.chainId);
  const secret = openServiceKey(keks, row);
  try {
    const signed = signServiceRequest(row, request, secret);
    const kek = keks.current('service');
    const resealed = row.kekId === kek.id ? null : { kekId: kek.id, ...sealedPrivateKey(sealUnderKek(kek, associatedData(row), secret)) };
    return { signed, resealed };
  } finally {
    wipe(secret);
  }
}

const sealedPrivateKey = ({ iv, ciphertext }: { iv: Uint8Array; ciphertext: Uint8Array }) => ({ iv, encryptedPrivateKey: ciphertext });

function signServiceRequest(row: ServiceKeyRow, request: ServiceKeySignRequest, secret: Uint8Array): Hex {
  switch (request.kind) {
    case 'hash':
      return signDigest(hashBytes(request.hash), secret).signature;
    case 'sponsorship':
      if (row.purpose !== 'sponsor') throw new Error('only the sponsor key signs sponsorships');
      return signDigest(hexToDigest(keccak256(Buffer.concat([EIP191_RAW_PREFIX, hashBytes(request.hash)]))), secret).signature;
    case 'relayer-transaction': {
      if (row.purpose !== 'relayer') throw new Error('only the relayer key signs relayer transactions');
      const transaction = parseTransaction(request.serializedTransaction);
      if (transaction.chainId !== row.chainId) throw new Error(`the relayer transaction's chainId must be ${row.chainId}`);
      const { r, s, yParity } = signDigest(hexToDigest(keccak256(serializeTransaction(transaction))), secret);
      return serializeTransaction(transaction, { r, s, yParity });
    }
    default:
      throw new Error('unknown service key request');
  }
}
