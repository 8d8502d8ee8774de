/**
 * The API's key vault: every call goes to the signer process, which holds the keys and the KEKs
 * that open them (see docs/custody.md). A signer that does not answer is 503 SIGNER_UNAVAILABLE;
 * 400 INVALID_REQUEST for bad input the signer found and 403 SIGNER_LIMIT_EXCEEDED for the signer's
 * own limits come back as such; any other refusal is a 500 without details.
 */
import {
  ApiError,
  createFrostKeyVault,
  createThresholdKeyVault,
  thresholdRefusal,
  decodeVaultValue,
  encodeVaultValue,
  VAULT_METHODS,
  type ThresholdVaultDeps,
  type KeyVault,
  type VaultCall,
} from '@wallet/domain';
import { SignerRefusedError, SignerUnavailableError } from '@wallet/signer/client';

/** The one call the vault needs of the signer client. */
export interface SignerCaller {
  call<T>(method: string, params: unknown, requestId?: string): Promise<T>;
}


export const signerUnavailable = () =>
  new ApiError(503, 'SIGNER_UNAVAILABLE', 'The signer could not be reached; nothing was signed. Retry with backoff.');

function translate(error: unknown): never {
  if (error instanceof SignerUnavailableError) throw signerUnavailable();
  // Bad input the signer found in the payload (the API's own checks passed it): as the signer says.
  if (error instanceof SignerRefusedError && error.status === 400 && error.code === 'INVALID_REQUEST') {
    throw new ApiError(400, 'INVALID_REQUEST', error.message, error.details ?? {});
  }
  // The signer's own limits (its host's configuration, apart from the project's policies).
  if (error instanceof SignerRefusedError && error.code === 'SIGNER_LIMIT_EXCEEDED') {
    throw new ApiError(403, 'SIGNER_LIMIT_EXCEEDED', error.message, { limit: String(error.details?.limit ?? 'unknown') });
  }
  // A threshold session that could not complete (an abort, a lost session, an OT setup to renew): retryable.
  if (error instanceof SignerRefusedError && error.status === 409 && (error.code.startsWith('DKLS_') || error.code === 'FROST_SESSION_UNKNOWN')) throw thresholdRefusal(error.code);
  if (error instanceof SignerRefusedError) throw new ApiError(500, 'INTERNAL_ERROR', `the signer refused the call (${error.code})`);
  throw error;
}

/** One vault call: params encoded for the wire, the answer decoded, the signer's refusals translated. */
export function createVaultCall(signer: SignerCaller): VaultCall {
  return async <T>(method: string, params: unknown, requestId?: string | null): Promise<T> => {
    try {
      return decodeVaultValue(await signer.call(method, encodeVaultValue(params), requestId ?? undefined)) as T;
    } catch (error) {
      return translate(error);
    }
  };
}

/** The signer's vault as it is (every wallet key in the signer: secp256k1, XOR-split Ed25519). */
export function createRemoteKeyVault(signer: SignerCaller): KeyVault {
  const call = createVaultCall(signer);
  return {
    createWalletKey: ({ walletId, scheme, clientHeldUserShare }) => call(VAULT_METHODS.createWalletKey, { walletId, scheme, clientHeldUserShare }),
    sign: (request) => call(VAULT_METHODS.sign, request, request.requestId),
    createEnclaveKey: (now) => call(VAULT_METHODS.createEnclaveKey, { now }),
    sealMigratedUserShare: (request) => call(VAULT_METHODS.sealMigratedUserShare, request),
    createServiceKey: (purpose, chainId, now) => call(VAULT_METHODS.createServiceKey, { purpose, chainId, now }),
    signWithServiceKey: (row, request) => call(VAULT_METHODS.signWithServiceKey, { row, request }),
  };
}

/**
 * The API's vault: FROST(Ed25519) and threshold ECDSA (DKLs23) wallets are created and signed with
 * the API as participant 1 (its share sealed under the API's KEK), everything else goes to the
 * signer (createRemoteKeyVault). `renewShares` stores threshold shares renewed by a fresh OT setup.
 */
export function createApiKeyVault(
  signer: SignerCaller,
  options: Pick<ThresholdVaultDeps, 'keks' | 'recovery' | 'renewShares' | 'crashAt' | 'presign'>,
): KeyVault {
  const call = createVaultCall(signer);
  const frost = createFrostKeyVault({ remote: createRemoteKeyVault(signer), call, keks: options.keks, recovery: options.recovery });
  return createThresholdKeyVault({ ...options, remote: frost, call });
}
