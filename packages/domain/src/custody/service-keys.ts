/**
 * The service's own EVM keys, one per purpose and chain: `sponsor` signs paymaster sponsorships,
 * `relayer` signs the EntryPoint.handleOps transactions the service sends. Each is a secp256k1
 * key generated on first use and stored AES-256-GCM under the current `service` KEK with the
 * associated data `service-key:<purpose>:<chainId>:<address>`, so a sealed key moved to another
 * purpose, chain or address no longer opens. This module keeps the sealed rows; the key vault (the
 * signer process, `service-key-crypto.ts`) generates them and opens one for each signature.
 * A key found sealed under a KEK that is no longer current is sealed again under the current one
 * by the vault when it signs (KEK rotation); the row is replaced guarded by the KEK id it was read
 * with, so concurrent processes store it once.
 */
import { serializeTransaction, type Address, type Hex, type TransactionSerializable } from 'viem';
import type { Clock } from '../shared/clock.ts';
import type { KeyVault, ServiceKeySignRequest } from './vault.ts';

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

export function checkServiceKey(purpose: ServiceKeyPurpose, chainId: number): void {
  if (!SERVICE_KEY_PURPOSES.includes(purpose)) throw new Error(`unknown service key purpose ${String(purpose)}`);
  if (!Number.isSafeInteger(chainId) || chainId <= 0 || chainId > 0x7fffffff) throw new Error(`EVM chain id ${String(chainId)} is not a positive 32-bit integer`);
}

/**
 * The service keys (ports for the sponsorship and relaying code): created on first use, then
 * reused by every process; each signature is the vault's.
 */
export function createServiceKeys({ store, vault, clock }: { store: ServiceKeyStore; vault: Pick<KeyVault, 'createServiceKey' | 'signWithServiceKey'>; clock: Clock }) {
  const rows = new Map<string, ServiceKeyRow>();

  async function load(purpose: ServiceKeyPurpose, chainId: number): Promise<ServiceKeyRow> {
    checkServiceKey(purpose, chainId);
    const id = `${purpose}:${chainId}`;
    const cached = rows.get(id);
    if (cached) return cached;
    const row = (await store.find(purpose, chainId)) ?? (await store.insertOrGet(await vault.createServiceKey(purpose, chainId, clock.now())));
    rows.set(id, row);
    return row;
  }

  async function sign(purpose: ServiceKeyPurpose, chainId: number, request: ServiceKeySignRequest): Promise<Hex> {
    const row = await load(purpose, chainId);
    const { signed, resealed } = await vault.signWithServiceKey(row, request);
    if (resealed) {
      await store.reseal(purpose, chainId, row.kekId, resealed);
      // Whoever resealed first, the row now names the current KEK.
      rows.set(`${purpose}:${chainId}`, (await store.find(purpose, chainId)) ?? row);
    }
    return signed;
  }

  return {
    /** The key's address; the key is generated on the first call for its purpose and chain (one key, whatever the concurrency). */
    async ensureServiceKey(purpose: ServiceKeyPurpose, chainId: number): Promise<{ address: Address }> {
      return { address: (await load(purpose, chainId)).address };
    },

    /** Raw ECDSA over the 32-byte hash (no prefix, no hashing): r || s || v as 0x hex. */
    signHash: (purpose: ServiceKeyPurpose, chainId: number, hash: Hex): Promise<Hex> => sign(purpose, chainId, { kind: 'hash', hash }),

    /** The sponsor key's EIP-191 signature over the 32 raw bytes of `hash` (viem `signMessage({ message: { raw: hash } })`). */
    signSponsorship: (chainId: number, hash: Hex): Promise<Hex> => sign('sponsor', chainId, { kind: 'sponsorship', hash }),

    /** The relayer's signed transaction on its chain (serialized, ready for eth_sendRawTransaction). */
    async signRelayerTransaction(chainId: number, transaction: TransactionSerializable): Promise<Hex> {
      if (transaction.chainId !== chainId) throw new Error(`the relayer transaction's chainId must be ${chainId}`);
      return sign('relayer', chainId, { kind: 'relayer-transaction', serializedTransaction: serializeTransaction(transaction) });
    },
  };
}

export type ServiceKeys = ReturnType<typeof createServiceKeys>;
