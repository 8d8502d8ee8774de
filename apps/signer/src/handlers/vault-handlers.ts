/**
 * The signer's RPC methods: the key vault (`@wallet/domain` local vault, the only code that opens
 * keys) behind strict parameter checks, the signer's own limits and its signature log. The caller
 * is assumed hostile (a compromised API process): params are re-validated here, the operation's
 * body is parsed again by its own schema, the payload is hashed by the operation itself, and every
 * signature is in the log, flushed to disk, before it leaves.
 */
import { encodeVaultValue, parseSigningInput, VAULT_METHODS, vaultParams, type KekProvider, type KeyVault, type RecoveryPublicKey } from '@wallet/domain';
import { createHash } from 'node:crypto';
import type { SignerHandler } from '../server/server.ts';
import { createCustodyHandlers } from './custody-handlers.ts';
import { createFrostHandlers } from './frost-handlers.ts';
import { createThresholdHandlers } from './threshold-handlers.ts';
import type { ThresholdStore } from '../store/threshold-store.ts';
import type { SignerPresignPoolOptions } from './presign-pool.ts';
import { admitSignature, assertCurrentEpoch, domainCall, parseParams, type EpochStore, type SignatureLimits, type SignatureLog } from './rpc.ts';

export type { SignatureLimits, SignatureLog } from './rpc.ts';

export interface VaultHandlerDeps {
  vault: KeyVault;
  log: SignatureLog;
  limits: SignatureLimits;
  /** Signatures per service key (sponsor, relayer) and minute; the key's log id stands for the wallet. */
  serviceKeyLimits: SignatureLimits;
  /** Whether a value cap is configured for the chain (an undecodable native amount is refused only then). */
  capsValue(chain: 'EVM' | 'SOLANA'): boolean;
  /** The epochs of the signer's store: a share of an epoch below a wallet's recorded one is refused. */
  epochs: EpochStore;
  /** The signer's KEKs (FROST participant 2's share, conversions, re-pads). */
  keks: KekProvider;
  /** What participant 3's contributions are sealed to. */
  recovery: RecoveryPublicKey;
  /** Threshold ECDSA's OT setups and used presignatures (threshold-store.ts). */
  threshold: ThresholdStore;
  /** How long a DKG or refresh session waits for its second round trip (default 30 s). */
  sessionTtlMs?: number;
  /** Bounds of the pooled threshold presignatures (threshold-handlers.ts). */
  presignPool?: SignerPresignPoolOptions;
  /** The signer's logger, for what the operator must see (a share handed over for a recovery). */
  logger?: { warn(obj: object, msg?: string): void };
}

const serviceKeyLogId = (row: { purpose: string; chainId: number }) => `service-key:${row.purpose}:${row.chainId}`;

export function createVaultHandlers(deps: VaultHandlerDeps): Record<string, SignerHandler> {
  const { vault, log, epochs } = deps;
  return {
    ...createFrostHandlers(deps),
    ...createThresholdHandlers(deps),
    ...createCustodyHandlers(deps),

    [VAULT_METHODS.createWalletKey]: async (params) => {
      const request = parseParams(vaultParams.createWalletKey, params);
      return encodeVaultValue(await vault.createWalletKey(request));
    },

    [VAULT_METHODS.sign]: async (params, context) => {
      const request = parseParams(vaultParams.sign, params);
      assertCurrentEpoch(epochs, request.wallet.id, request.shares.map((s) => s.epoch));
      const input = await domainCall(async () => parseSigningInput(request.wallet.type, request.operation, request.input));
      await admitSignature(deps, request.wallet, request.operation, input);
      const signed = await domainCall(() => vault.sign({ ...request, input }));
      await log.appendSignature({ walletId: request.wallet.id, digest: signed.digest, requestId: request.requestId ?? context.requestId, action: request.action });
      return encodeVaultValue(signed);
    },

    [VAULT_METHODS.createEnclaveKey]: async (params) => {
      const { now } = parseParams(vaultParams.createEnclaveKey, params);
      return encodeVaultValue(await vault.createEnclaveKey(now));
    },

    [VAULT_METHODS.sealMigratedUserShare]: async (params) => {
      const request = parseParams(vaultParams.sealMigratedUserShare, params);
      return encodeVaultValue(await domainCall(() => vault.sealMigratedUserShare(request)));
    },

    [VAULT_METHODS.createServiceKey]: async (params) => {
      const { purpose, chainId, now } = parseParams(vaultParams.createServiceKey, params);
      return encodeVaultValue(await vault.createServiceKey(purpose, chainId, now));
    },

    [VAULT_METHODS.signWithServiceKey]: async (params, context) => {
      const { row, request } = parseParams(vaultParams.signWithServiceKey, params);
      deps.serviceKeyLimits.admit(serviceKeyLogId(row), null);
      const result = await vault.signWithServiceKey({ ...row, address: row.address as `0x${string}` }, request as Parameters<KeyVault['signWithServiceKey']>[1]);
      const digest = request.kind === 'relayer-transaction' ? request.serializedTransaction : request.hash;
      await log.appendSignature({ walletId: serviceKeyLogId(row), digest: digestOf(digest), requestId: context.requestId, action: `service-key.sign.${request.kind}` });
      return encodeVaultValue(result);
    },
  };
}

function digestOf(hex: string): string {
  return createHash('sha256').update(Buffer.from(hex.slice(2), 'hex')).digest('hex');
}
