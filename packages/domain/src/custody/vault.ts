/**
 * The key vault: every operation of the service that needs a private key or a key-encryption key
 * (KEK) that opens one. The API process holds neither: it reaches the vault over the signer's
 * transport (`@wallet/signer/client`), and only the signer process runs the implementation that
 * opens keys (`local-vault.ts`, never imported by the API). What crosses this port is sealed shares,
 * public keys, payloads to sign and signatures.
 */
import type { Hex } from 'viem';
import type { EnclaveKeyRow } from '../ports.ts';
import type { SignOperationName } from '../signing/signers.ts';
import type { WalletType } from '../wallets/addresses.ts';
import type { Scheme } from './keys.ts';
import type { ServiceKeyPurpose, ServiceKeyRow } from './service-keys.ts';
import type { PublicKeyPackage, Round1Package, Round2Package, SigningCommitments } from '@wallet/frost-ed25519';
import type { CustodyMode, EncryptedShare } from './types.ts';

/** What the vault needs to know of a wallet to sign with it (public data). */
export interface VaultWallet {
  id: string;
  type: WalletType;
  scheme: Scheme;
  address: string;
  /** The wallet's stored public key (wallets.public_key); FROST opens shares sealed for exactly this group key. */
  publicKey?: string;
}

export interface WalletSignRequest {
  wallet: VaultWallet;
  /** The wallet's sealed shares, as stored. */
  shares: EncryptedShare[];
  operation: SignOperationName;
  /** The operation's body, parsed by its schema. The vault hashes what it signs itself. */
  input: Record<string, unknown>;
  /** The request that asked (the signer's log records it). */
  requestId: string | null;
  /** The audit action, e.g. `wallet.sign.transfer`. */
  action: string;
}

export interface WalletSignResult {
  response: Record<string, unknown>;
  /** Hex SHA-256 of what was signed. */
  digest: string;
  chainId: string | null;
}

export interface NewWalletKey {
  /** 33-byte compressed secp256k1 key or 32-byte Ed25519 key. */
  publicKey: Uint8Array;
  /** Sealed for storage: both shares, or the service share alone when the user share goes to the client. */
  shares: EncryptedShare[];
  /** The plain user share handed to the client (client-held custody); null otherwise. The caller wipes it. */
  clientUserShare: Uint8Array | null;
}

/** What a service key signs: a raw 32-byte hash, a sponsorship (EIP-191 over the hash), or an unsigned relayer transaction. */
export type ServiceKeySignRequest =
  | { kind: 'hash'; hash: Hex }
  | { kind: 'sponsorship'; hash: Hex }
  | { kind: 'relayer-transaction'; serializedTransaction: Hex };

export interface ServiceKeySignResult {
  /** `hash`/`sponsorship`: r || s || v; `relayer-transaction`: the signed serialized transaction. */
  signed: Hex;
  /** Set when the key was sealed under a KEK that is no longer current: the same key sealed under the current one, to store. */
  resealed: Pick<ServiceKeyRow, 'kekId' | 'iv' | 'encryptedPrivateKey'> | null;
}

export interface MigrationRequest {
  wallet: VaultWallet & { publicKey: string };
  serviceShare: EncryptedShare;
  enclaveKey: EnclaveKeyRow;
  /** The client's ECIES envelope holding the user share (see migration/envelope.ts). */
  encryptedPayload: string;
}

export interface KeyVault {
  /** Generates a wallet key and seals its shares; the joined key is wiped before this returns. */
  createWalletKey(request: { walletId: string; scheme: Scheme; clientHeldUserShare: boolean; custodyMode?: CustodyMode }): Promise<NewWalletKey>;
  /** One signature with the wallet's key, of the payload the operation builds from `input`. */
  sign(request: WalletSignRequest): Promise<WalletSignResult>;
  /** A fresh enclave key pair (P-256) with its private half sealed. */
  createEnclaveKey(now: Date): Promise<EnclaveKeyRow>;
  /**
   * Opens the client's migration envelope, checks that its user share completes the wallet's key
   * (400 INVALID_REQUEST otherwise) and answers the user share sealed for storage.
   */
  sealMigratedUserShare(request: MigrationRequest): Promise<EncryptedShare>;
  /** A fresh service key of that purpose and chain, sealed. */
  createServiceKey(purpose: ServiceKeyPurpose, chainId: number, now: Date): Promise<ServiceKeyRow>;
  /** One signature with a stored service key. */
  signWithServiceKey(row: ServiceKeyRow, request: ServiceKeySignRequest): Promise<ServiceKeySignResult>;
}

// ---------------------------------------------------------------------------------------------
// FROST(Ed25519) between the API (participant 1, coordinator) and the signer (participant 2).
// What the signer answers over the vault RPC (vault-rpc.ts); every point in it is validated by
// the API's FROST functions before use.

export interface FrostRoundStart {
  /** The signer's in-memory session (short TTL); a lost session fails the run, which is retried. */
  sessionId: string;
  round1: Round1Package;
  /** The signer's round-2 package for participant 1 (secret; crosses only the mTLS channel). */
  round2: Round2Package;
}

export interface FrostSealedShares {
  /** Participant 2's key package sealed under the signer's service KEK. */
  signerShare: EncryptedShare;
  /** The signer's contribution to participant 3's share, sealed to the recovery key. */
  recoveryShare: EncryptedShare;
  publicKeyPackage: PublicKeyPackage;
}

export interface FrostImportResult extends FrostSealedShares {
  /**
   * Participant 1's share in the clear (the FROST share encoding), only over mTLS to the API, which
   * seals it under its own KEK and wipes it. participant 3's dealt share is in `recoveryShare`.
   */
  apiShare: Uint8Array;
}

export interface FrostSignShare {
  commitments: SigningCommitments;
  signatureShare: Uint8Array;
}
