/**
 * The signer's RPC methods: the key vault (`@wallet/domain` local vault, the only code that opens
 * keys) behind strict parameter checks, the signer's own limits and its signature log. The caller
 * is assumed hostile (a compromised API process): params are re-validated here, the operation's
 * body is parsed again by its own schema, the payload is hashed by the operation itself, and every
 * signature is in the log, flushed to disk, before it leaves.
 */
import { ApiError, decodeVaultValue, encodeVaultValue, nativeOutflow, parseSigningInput, VAULT_METHODS, vaultParams, type KeyVault } from '@wallet/domain';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';

export interface SignatureLog {
  appendSignature(entry: { walletId: string; digest: string; requestId: string | null; action?: string }): Promise<unknown>;
}

export interface SignatureLimits {
  admit(walletId: string, native: { chain: 'EVM' | 'SOLANA'; value: bigint } | null): void;
}

export interface VaultHandlerDeps {
  vault: KeyVault;
  log: SignatureLog;
  limits: SignatureLimits;
  /** Whether a value cap is configured for the chain (an undecodable native amount is refused only then). */
  capsValue(chain: 'EVM' | 'SOLANA'): boolean;
}

function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(decodeVaultValue(params));
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SignerError('INVALID_PARAMS', `invalid params${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`, 400);
  }
  return result.data;
}

/** An ApiError the domain threw for bad input (400) crosses as itself; the API passes it on. */
async function domainCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw new SignerError(error.code, error.message, 400, error.extra);
    throw error;
  }
}

const serviceKeyLogId = (row: { purpose: string; chainId: number }) => `service-key:${row.purpose}:${row.chainId}`;

export function createVaultHandlers({ vault, log, limits, capsValue }: VaultHandlerDeps): Record<string, SignerHandler> {
  return {
    [VAULT_METHODS.createWalletKey]: async (params) => {
      const request = parseParams(vaultParams.createWalletKey, params);
      return encodeVaultValue(await vault.createWalletKey(request));
    },

    [VAULT_METHODS.sign]: async (params, context) => {
      const request = parseParams(vaultParams.sign, params);
      const input = await domainCall(async () => parseSigningInput(request.wallet.type, request.operation, request.input));
      const outflow = await domainCall(async () => nativeOutflow(request.wallet, request.operation, input));
      if (outflow && outflow.value === null && capsValue(outflow.chain)) {
        throw new SignerError('SIGNER_LIMIT_EXCEEDED', 'the native value this transaction moves cannot be decoded, and the signer caps native value', 403, { limit: 'nativeValueCap' });
      }
      limits.admit(request.wallet.id, outflow && outflow.value !== null ? { chain: outflow.chain, value: outflow.value } : null);
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
