import { z } from 'zod';
import type { KeyVault } from '../custody/vault.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import type { CustodyStore, EnclaveKeyRow, WalletRecord, WalletStore } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { toWalletView, type WalletService } from '../wallets/service.ts';
import type { WalletView } from '../wallets/schemas.ts';
import { enclavePublicView } from './enclave-key.ts';

export const migrateShareBody = z
  .strictObject({ encryptedPayload: z.string().min(1, 'encryptedPayload is required') })
  .meta({ id: 'MigrateShareRequest' });

export const enclavePublicKeySchema = z
  .object({ publicKey: z.string(), keyFingerprint: z.string(), generatedAt: z.iso.datetime() })
  .meta({ id: 'EnclavePublicKey' });

export interface MigrationServiceDeps {
  custody: CustodyStore;
  wallets: WalletStore;
  vault: Pick<KeyVault, 'createEnclaveKey' | 'sealMigratedUserShare'>;
  clock: Clock;
  loadWallet: WalletService['loadWallet'];
}

/**
 * Migration of client-side pregenerated wallets: the client encrypts the wallet's user share to the
 * enclave key (ECIES-P256-AES256-SHA256); the service checks it completes the wallet's key, stores
 * it under the user-share KEK, and from then on signs with only the wallet id and the API key.
 */
export function createMigrationService({ custody, wallets, vault, clock, loadWallet }: MigrationServiceDeps) {
  let cached: EnclaveKeyRow | undefined;
  async function enclaveKey(): Promise<EnclaveKeyRow> {
    if (cached) return cached;
    const existing = await custody.getEnclaveKey();
    cached = existing ?? (await custody.saveEnclaveKey(await vault.createEnclaveKey(clock.now())));
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
      const stored = await wallets.findShares(wallet.id);
      const serviceShare = stored.find((s) => s.role === 'service');
      if (!serviceShare) throw invalidRequest('Key generation of this wallet is not complete');
      // The vault opens the envelope, checks the share completes the wallet's key and seals it.
      const encrypted = await vault.sealMigratedUserShare({
        wallet: { id: wallet.id, type: wallet.type, scheme: wallet.scheme, address: wallet.address, publicKey: wallet.publicKey },
        serviceShare,
        enclaveKey: key,
        encryptedPayload: input.encryptedPayload,
      });
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
