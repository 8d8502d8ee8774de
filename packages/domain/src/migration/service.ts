import { z } from 'zod';
import { publicKeyFromSecret } from '../custody/keys.ts';
import { decryptShare, encryptShare, joinShares, wipe, type KekProvider } from '../custody/shares.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import type { CustodyStore, EnclaveKeyRow, WalletRecord, WalletStore } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { formatPublicKey } from '../wallets/addresses.ts';
import { toWalletView, type WalletService } from '../wallets/service.ts';
import type { WalletView } from '../wallets/schemas.ts';
import { enclavePublicView, generateEnclaveKey, openEnclavePrivateKey } from './enclave-key.ts';
import { decryptMigrationPayload } from './envelope.ts';

export const migrateShareBody = z
  .strictObject({ encryptedPayload: z.string().min(1, 'encryptedPayload is required') })
  .meta({ id: 'MigrateShareRequest' });

export const enclavePublicKeySchema = z
  .object({ publicKey: z.string(), keyFingerprint: z.string(), generatedAt: z.iso.datetime() })
  .meta({ id: 'EnclavePublicKey' });

export interface MigrationServiceDeps {
  custody: CustodyStore;
  wallets: WalletStore;
  keks: KekProvider;
  clock: Clock;
  loadWallet: WalletService['loadWallet'];
}

/**
 * Migration of client-side pregenerated wallets: the client encrypts the wallet's user share to the
 * enclave key (ECIES-P256-AES256-SHA256); the service checks it completes the wallet's key, stores
 * it under the user-share KEK, and from then on signs with only the wallet id and the API key.
 */
export function createMigrationService({ custody, wallets, keks, clock, loadWallet }: MigrationServiceDeps) {
  let cached: EnclaveKeyRow | undefined;
  async function enclaveKey(): Promise<EnclaveKeyRow> {
    if (cached) return cached;
    const existing = await custody.getEnclaveKey();
    cached = existing ?? (await custody.saveEnclaveKey(generateEnclaveKey(keks, clock.now())));
    return cached;
  }

  function assertMigratable(wallet: WalletRecord) {
    if (wallet.claimedAt) throw new ApiError(403, 'WALLET_ALREADY_CLAIMED', 'This wallet was claimed by its user and cannot be migrated');
    if (wallet.custody === 'api_key') throw new ApiError(409, 'WALLET_ALREADY_MIGRATED', 'This wallet is already signable through REST');
    if (wallet.status !== 'ready') throw invalidRequest('Key generation of this wallet is not complete');
  }

  return {
    async publicKey(): Promise<z.output<typeof enclavePublicKeySchema>> {
      return enclavePublicView(await enclaveKey());
    },

    async migrate(caller: Caller, walletId: string, body: unknown): Promise<WalletView> {
      const wallet = await loadWallet(caller, walletId);
      const input = parseInput(migrateShareBody, body);
      assertMigratable(wallet);
      const key = await enclaveKey();
      const shares = decryptMigrationPayload(input.encryptedPayload, {
        privateKey: openEnclavePrivateKey(keks, key),
        keyId: key.id,
      });
      const share = shares.find((s) => s.walletId === wallet.id);
      if (!share || shares.some((s) => s.walletId !== wallet.id || s.userId !== wallet.id)) {
        throw invalidRequest('The payload is for another wallet');
      }
      if (share.walletScheme !== wallet.scheme) throw invalidRequest(`The payload's walletScheme does not match this ${wallet.scheme} wallet`);

      const userShare = new Uint8Array(Buffer.from(share.signer, 'hex'));
      const stored = await wallets.findShares(wallet.id);
      const serviceShare = stored.find((s) => s.role === 'service');
      if (!serviceShare) throw invalidRequest('Key generation of this wallet is not complete');
      const service = decryptShare(keks, wallet.id, serviceShare);
      const secret = joinShares(userShare, service);
      let matches: boolean;
      try {
        matches = formatPublicKey(wallet.type, publicKeyFromSecret(wallet.scheme, secret)) === wallet.publicKey;
      } finally {
        wipe(secret, service);
      }
      if (!matches) {
        wipe(userShare);
        throw invalidRequest("The signer share does not complete this wallet's key; nothing was stored");
      }
      const encrypted = encryptShare(keks, wallet.id, 'user', userShare);
      wipe(userShare);
      const migrated = await custody.attachUserShare(wallet.id, encrypted, clock.now(), {
        projectId: caller.projectId,
        apiKeyId: caller.apiKeyId,
        walletId: wallet.id,
        requestId: caller.requestId,
        action: 'wallet.migrate-share',
        details: { kekId: encrypted.kekId, enclaveKeyId: key.id },
      });
      if (!migrated) {
        // Claimed or migrated between our read and the write.
        assertMigratable(await loadWallet(caller, walletId));
        throw new ApiError(409, 'WALLET_ALREADY_MIGRATED', 'This wallet is already signable through REST');
      }
      return toWalletView(migrated);
    },
  };
}

export type MigrationService = ReturnType<typeof createMigrationService>;
