import { walletCreatedEvent, type CustodyStore, type EnclaveKeyRow, type EncryptedShare, type KeyMaintenanceStore, type ShareRole } from '@wallet/domain';
import { eventData } from './users.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';
import { toWalletRecord } from './wallets.ts';

const shareData = (walletId: string, share: EncryptedShare) => ({
  walletId,
  role: share.role,
  epoch: share.epoch ?? 0,
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

type WalletWithShares = Parameters<typeof toWalletRecord>[0] & { shares: Array<{ role: string; epoch: number; kekId: string; iv: Uint8Array; ciphertext: Uint8Array }> };
const toStored = ({ shares, ...wallet }: WalletWithShares) => ({
  wallet: toWalletRecord(wallet),
  shares: shares.map((s) => ({ role: s.role as ShareRole, epoch: s.epoch, kekId: s.kekId, iv: new Uint8Array(s.iv), ciphertext: new Uint8Array(s.ciphertext) })),
});
const sharesInOrder = { shares: { orderBy: [{ role: 'asc' as const }, { epoch: 'asc' as const }] } };

/** The operator's key maintenance (npm run custody): wallets with their shares, and replacing shares in one transaction. */
export function createKeyMaintenanceStore(prisma: PrismaClient): KeyMaintenanceStore {
  return {
    async list(after, limit, projectId) {
      const rows = await prisma.wallet.findMany({
        where: { custody: 'api_key', ...(projectId ? { projectId } : {}), ...(after ? { id: { gt: after } } : {}) },
        include: sharesInOrder,
        orderBy: { id: 'asc' },
        take: limit,
      });
      return rows.map(toStored);
    },

    async get(walletId) {
      const row = await prisma.wallet.findUnique({ where: { id: walletId }, include: sharesInOrder });
      return row ? toStored(row) : null;
    },

    async appendAudit(audit) {
      await prisma.auditLog.create({ data: auditData(audit) });
    },

    async replaceShares(walletId, remove, add, audit, custodyMode) {
      try {
        return await prisma.$transaction(async (tx) => {
          for (const { role, epoch } of remove) {
            const deleted = await tx.keyShare.deleteMany({ where: { walletId, role, epoch } });
            if (deleted.count !== 1) throw new StaleShares();
          }
          await tx.keyShare.createMany({ data: add.map((share) => shareData(walletId, share)) });
          if (custodyMode) await tx.wallet.update({ where: { id: walletId }, data: { custodyMode } });
          await tx.auditLog.create({ data: auditData(audit) });
          return true;
        });
      } catch (error) {
        if (error instanceof StaleShares) return false;
        throw error;
      }
    },
  };
}

class StaleShares extends Error {}
