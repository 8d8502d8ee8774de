/**
 * The key vault that holds the keys: it runs inside the signer process (and in tests that stand in
 * for it), never in the API process; nothing in the API imports this module. Wallet keys are joined
 * here for one signature and wiped; service keys and the enclave key are opened for one use.
 */
import { ApiError, invalidRequest } from '../errors.ts';
import { decryptMigrationPayload } from '../migration/envelope.ts';
import { generateEnclaveKey, openEnclavePrivateKey } from '../migration/enclave-key-crypto.ts';
import { signOperation } from '../signing/signers.ts';
import { formatPublicKey } from '../wallets/addresses.ts';
import { joinedKeyMaterial } from './joined-key.ts';
import { generateKey, publicKeyFromSecret } from './keys.ts';
import { generateServiceKey, signWithServiceKeyRow } from './service-key-crypto.ts';
import { importSeed, wipeKeyPackage, type KeyPackage } from '@wallet/frost-ed25519';
import { encodeFrostShare, sealFrostShare } from './frost-share.ts';
import { sealToRecovery, type RecoveryPublicKey } from './recovery-seal.ts';
import { decryptShare, encryptShare, joinShares, repadShares, splitSecret, withWalletSecret, withWalletSecretAsync } from './shares.ts';
import { wipe, type EncryptedShare, type KekProvider } from './types.ts';
import type { FrostImportResult, KeyVault } from './vault.ts';

export interface LocalKeyVaultOptions {
  keks: KekProvider;
  /**
   * Also create API-custody Ed25519 wallets as XOR halves (the path before FROST): only for tests and
   * for making the wallets the conversion converts. Without it such wallets come from the FROST DKG
   * between the API and the signer, and this vault refuses to make them.
   */
  xorEd25519Wallets?: boolean;
}

export function createLocalKeyVault({ keks, xorEd25519Wallets = false }: LocalKeyVaultOptions): KeyVault {
  return {
    async createWalletKey({ walletId, scheme, clientHeldUserShare }) {
      // A client-held wallet's user share goes to the client whole (it is migrated, then converted).
      if (scheme === 'ED25519' && !clientHeldUserShare && !xorEd25519Wallets) {
        throw new Error('Ed25519 wallets are created by a FROST DKG between the API and the signer, not as XOR halves');
      }
      const key = generateKey(scheme);
      const { user, service } = splitSecret(key.secret);
      wipe(key.secret);
      try {
        const shares = clientHeldUserShare
          ? [encryptShare(keks, walletId, 'service', service)]
          : [encryptShare(keks, walletId, 'user', user), encryptShare(keks, walletId, 'service', service)];
        return { publicKey: key.publicKey, shares, clientUserShare: clientHeldUserShare ? new Uint8Array(user) : null };
      } finally {
        wipe(user, service);
      }
    },

    async sign({ wallet, shares, operation, input }) {
      const op = signOperation(wallet.type, operation);
      const signed = await withWalletSecretAsync(keks, wallet.id, shares, (secret) => op.sign(joinedKeyMaterial(wallet.scheme, secret, wallet.address), input));
      return { ...signed, chainId: signed.chainId ?? null };
    },

    async createEnclaveKey(now) {
      return generateEnclaveKey(keks, now);
    },

    async sealMigratedUserShare({ wallet, serviceShare, enclaveKey, encryptedPayload }) {
      const shares = decryptMigrationPayload(encryptedPayload, { privateKey: openEnclavePrivateKey(keks, enclaveKey), keyId: enclaveKey.id });
      const share = shares.find((s) => s.walletId === wallet.id);
      if (!share || shares.some((s) => s.walletId !== wallet.id || s.userId !== wallet.id)) {
        throw invalidRequest('The payload is for another wallet');
      }
      if (share.walletScheme !== wallet.scheme) throw invalidRequest(`The payload's walletScheme does not match this ${wallet.scheme} wallet`);
      if (serviceShare.role !== 'service') throw new ApiError(500, 'INTERNAL_ERROR', 'the stored share is not a service share');
      const userShare = new Uint8Array(Buffer.from(share.signer, 'hex'));
      const service = decryptShare(keks, wallet.id, serviceShare);
      const secret = joinShares(userShare, service);
      let matches: boolean;
      try {
        matches = formatPublicKey(wallet.type, publicKeyFromSecret(wallet.scheme, secret)) === wallet.publicKey;
      } finally {
        wipe(secret, service);
      }
      try {
        if (!matches) throw invalidRequest("The signer share does not complete this wallet's key; nothing was stored");
        return encryptShare(keks, wallet.id, 'user', userShare);
      } finally {
        wipe(userShare);
      }
    },

    async createServiceKey(purpose, chainId, now) {
      return generateServiceKey(keks, purpose, chainId, now);
    },

    async signWithServiceKey(row, request) {
      return signWithServiceKeyRow(keks, row, request);
    },
  };
}

/**
 * Conversion of an XOR-split Ed25519 wallet to FROST 2-of-3 (trusted dealer, RFC 9591 Appendix C):
 * joins the halves once, splits the RFC 8032 scalar of the seed with `importSeed`, seals participant
 * 2's share under the service KEK and participant 3's to the recovery key, and answers participant 1's
 * share in the clear for the API (which seals it under its own KEK). Refuses when the joined key is not
 * `groupPublicKey` (the wallet's stored key). Every secret here is wiped before it returns.
 */
export function convertXorToFrost(
  keks: KekProvider,
  recovery: RecoveryPublicKey,
  walletId: string,
  shares: EncryptedShare[],
  groupPublicKey: Uint8Array,
  epoch: number,
): FrostImportResult {
  return withWalletSecret(keks, walletId, shares, (seed) => {
    const split = importSeed(seed);
    try {
      const [k1, k2, k3] = split.keyPackages as [KeyPackage, KeyPackage, KeyPackage];
      const publicKeyPackage = split.publicKeyPackage;
      if (!Buffer.from(publicKeyPackage.groupPublicKey).equals(Buffer.from(groupPublicKey))) throw new Error("the joined key is not the wallet's key");
      return {
        apiShare: encodeFrostShare({ keyPackage: k1, publicKeyPackage }),
        signerShare: sealFrostShare(keks.current('service'), walletId, 'frost-signer', { keyPackage: k2, publicKeyPackage }, epoch),
        recoveryShare: sealToRecovery(recovery, walletId, 'recovery-signer', groupPublicKey, epoch, { kind: 'key-package', keyPackage: k3, publicKeyPackage }),
        publicKeyPackage,
      };
    } finally {
      for (const k of split.keyPackages) wipeKeyPackage(k);
    }
  });
}

/** secp256k1 refresh: the same key under a new pad, sealed at `epoch` (shares.ts `repadShares`). */
export function repadXorShares(keks: KekProvider, walletId: string, shares: EncryptedShare[], epoch: number): EncryptedShare[] {
  return repadShares(keks, walletId, shares, epoch);
}
