/**
 * The service's own EVM keys, one per purpose and chain: `sponsor` signs paymaster sponsorships,
 * `relayer` signs the EntryPoint.handleOps transactions the service sends. Each is a secp256k1
 * key generated on first use and stored AES-256-GCM under the current `service` KEK with the
 * associated data `service-key:<purpose>:<chainId>:<address>`, so a sealed key moved to another
 * purpose, chain or address no longer opens. The private key is opened only inside this module,
 * for one signature, and wiped afterwards; it never leaves it, nor appears in an error.
 * A key found sealed under a KEK that is no longer current is sealed again under the current one
 * (KEK rotation), guarded by the KEK id it was read with, so concurrent processes reseal it once.
 */
import { createECDH } from 'node:crypto';
import { getAddress, keccak256, serializeTransaction, toHex, type Address, type Hex, type TransactionSerializable } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { Clock } from '../shared/clock.ts';
import { signSecp256k1 } from '../signing/secp256k1.ts';
import { openUnderKek, sealUnderKek } from './kek-seal.ts';
import { wipe, type KekProvider } from './shares.ts';

export type ServiceKeyPurpose = 'sponsor' | 'relayer';
export const SERVICE_KEY_PURPOSES: readonly ServiceKeyPurpose[] = ['sponsor', 'relayer'];

/** The stored form of a service key (the `service_keys` row). */
export interface ServiceKeyRow {
  purpose: ServiceKeyPurpose;
  chainId: number;
  /** EIP-55 checksummed. */
  address: Address;
  kekId: string;
  iv: Uint8Array;
  encryptedPrivateKey: Uint8Array;
  createdAt: Date;
}

export interface ServiceKeyStore {
  find(purpose: ServiceKeyPurpose, chainId: number): Promise<ServiceKeyRow | null>;
  /** Inserts the key unless one of that purpose and chain exists; answers the stored one (the first insert wins). */
  insertOrGet(row: ServiceKeyRow): Promise<ServiceKeyRow>;
  /** Replaces the sealed key only while it is sealed under `fromKekId`; answers whether it did. */
  reseal(purpose: ServiceKeyPurpose, chainId: number, fromKekId: string, sealed: Pick<ServiceKeyRow, 'kekId' | 'iv' | 'encryptedPrivateKey'>): Promise<boolean>;
}

const OPEN_FAILED = 'service key cannot be decrypted';
const associatedData = (row: Pick<ServiceKeyRow, 'purpose' | 'chainId' | 'address'>) => `service-key:${row.purpose}:${row.chainId}:${row.address}`;

function checkKey(purpose: ServiceKeyPurpose, chainId: number): void {
  if (!SERVICE_KEY_PURPOSES.includes(purpose)) throw new Error(`unknown service key purpose ${String(purpose)}`);
  if (!Number.isSafeInteger(chainId) || chainId <= 0 || chainId > 0x7fffffff) throw new Error(`EVM chain id ${String(chainId)} is not a positive 32-bit integer`);
}

/** A fresh secp256k1 key sealed under the current service KEK; the plaintext is wiped before this returns. */
export function generateServiceKey(keks: KekProvider, purpose: ServiceKeyPurpose, chainId: number, now: Date): ServiceKeyRow {
  checkKey(purpose, chainId);
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

/**
 * The service keys (ports for the sponsorship and relaying code): created on first use, then
 * reused by every process; signing opens the key for the one signature.
 */
export function createServiceKeys({ store, keks, clock }: { store: ServiceKeyStore; keks: KekProvider; clock: Clock }) {
  const rows = new Map<string, ServiceKeyRow>();

  /** The stored key, sealed under the current service KEK (resealed when it was not). */
  async function load(purpose: ServiceKeyPurpose, chainId: number): Promise<ServiceKeyRow> {
    checkKey(purpose, chainId);
    const id = `${purpose}:${chainId}`;
    const current = keks.current('service').id;
    const cached = rows.get(id);
    if (cached && cached.kekId === current) return cached;
    let row = (await store.find(purpose, chainId)) ?? (await store.insertOrGet(generateServiceKey(keks, purpose, chainId, clock.now())));
    if (row.kekId !== current) {
      const secret = openServiceKey(keks, row);
      try {
        const kek = keks.current('service');
        const { iv, ciphertext } = sealUnderKek(kek, associatedData(row), secret);
        await store.reseal(purpose, chainId, row.kekId, { kekId: kek.id, iv, encryptedPrivateKey: ciphertext });
      } finally {
        wipe(secret);
      }
      // Whoever resealed first, the row now names the current KEK.
      row = (await store.find(purpose, chainId))!;
    }
    rows.set(id, row);
    return row;
  }

  async function withSecret<T>(purpose: ServiceKeyPurpose, chainId: number, use: (secret: Uint8Array, row: ServiceKeyRow) => T): Promise<T> {
    const row = await load(purpose, chainId);
    const secret = openServiceKey(keks, row);
    try {
      return use(secret, row);
    } finally {
      wipe(secret);
    }
  }

  return {
    /** The key's address; the key is generated on the first call for its purpose and chain (one key, whatever the concurrency). */
    async ensureServiceKey(purpose: ServiceKeyPurpose, chainId: number): Promise<{ address: Address }> {
      return { address: (await load(purpose, chainId)).address };
    },

    /** Raw ECDSA over the 32-byte hash (no prefix, no hashing): r || s || v as 0x hex. */
    async signHash(purpose: ServiceKeyPurpose, chainId: number, hash: Hex): Promise<Hex> {
      const digest = hashBytes(hash);
      return withSecret(purpose, chainId, (secret) => signDigest(digest, secret).signature);
    },

    /** The sponsor key's EIP-191 signature over the 32 raw bytes of `hash` (viem `signMessage({ message: { raw: hash } })`). */
    async signSponsorship(chainId: number, hash: Hex): Promise<Hex> {
      const digest = hexToDigest(keccak256(Buffer.concat([EIP191_RAW_PREFIX, hashBytes(hash)])));
      return withSecret('sponsor', chainId, (secret) => signDigest(digest, secret).signature);
    },

    /** The relayer's signed transaction on its chain (serialized, ready for eth_sendRawTransaction). */
    async signRelayerTransaction(chainId: number, transaction: TransactionSerializable): Promise<Hex> {
      if (transaction.chainId !== chainId) throw new Error(`the relayer transaction's chainId must be ${chainId}`);
      const digest = hexToDigest(keccak256(serializeTransaction(transaction)));
      return withSecret('relayer', chainId, (secret) => {
        const { r, s, yParity } = signDigest(digest, secret);
        return serializeTransaction(transaction, { r, s, yParity });
      });
    },
  };
}

const hexToDigest = (hex: Hex) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

export type ServiceKeys = ReturnType<typeof createServiceKeys>;
