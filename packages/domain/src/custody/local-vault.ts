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
import { decryptShare, encryptShare, joinShares, splitSecret, withWalletSecretAsync } from './shares.ts';
import { wipe, type KekProvider } from './types.ts';
import type { KeyVault } from './vault.ts';

export function createLocalKeyVault({ keks }: { keks: KekProvider }): KeyVault {
  return {
    async createWalletKey({ walletId, scheme, clientHeldUserShare }) {
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
