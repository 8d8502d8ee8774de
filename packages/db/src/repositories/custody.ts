import { walletCreatedEvent, type CustodyStore, type EnclaveKeyRow, type EncryptedShare } from '@wallet/domain';
import { eventData } from './users.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';
import { toWalletRecord } from './wallets.ts';

const shareData = (walletId: string, share: EncryptedShare) => ({
  walletId,
  role: share.role,
  kekId: share.kekId,
  iv: Buffer.from(share.iv),
  ciphertext: Buffer.from(share.ciphertext),
});

const toKey = (row: EnclaveKeyRow): EnclaveKeyRow => ({
  ...row,
  iv: new Uint8Array(row.iv),
  encryptedPrivateKey: new Uint8Array(row.encryptedPrivateKey),
});

export function createCustodyStore(prisma: PrismaClient): CustodyStore {
  return {
    async createClientWallet(wallet, serviceShare, audit) {
      return prisma.$transaction(async (tx) => {
        const row = await tx.wallet.create({ data: wallet });
        await tx.keyShare.create({ data: shareData(wallet.id, serviceShare) });
        await tx.auditLog.create({ data: auditData(audit) });
        await tx.event.create({ data: eventData(walletCreatedEvent(toWalletRecord(row))) });
        return toWalletRecord(row);
      });
    },

    async attachUserShare(walletId, userShare, at, audit) {
      return prisma.$transaction(async (tx) => {
        const updated = await tx.wallet.updateManyAndReturn({
          where: { id: walletId, custody: 'client', claimedAt: null },
          data: { custody: 'api_key', migratedAt: at },
        });
        if (updated.length === 0) return null;
        await tx.keyShare.create({ data: shareData(walletId, userShare) });
        await tx.auditLog.create({ data: auditData(audit) });
        return toWalletRecord(updated[0]!);
      });
    },

    async getEnclaveKey() {
      const row = await prisma.enclaveKey.findUnique({ where: { isCurrent: true }, omit: { isCurrent: true } });
      return row ? toKey(row) : null;
    },

    async saveEnclaveKey(key) {
      // ON CONFLICT DO NOTHING: the unique is_current makes the first insert win, whatever the concurrency.
      await prisma.enclaveKey.createMany({
        data: [{ ...key, iv: Buffer.from(key.iv), encryptedPrivateKey: Buffer.from(key.encryptedPrivateKey), isCurrent: true }],
        skipDuplicates: true,
      });
      const current = await prisma.enclaveKey.findUniqueOrThrow({ where: { isCurrent: true }, omit: { isCurrent: true } });
      return toKey(current);
    },
  };
}
