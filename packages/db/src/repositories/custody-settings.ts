import type { CustodyMode, CustodySettingsStore, EncryptedShare } from '@wallet/domain';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';

/** The custody mode of new secp256k1 wallets, per project and environment (no row: `isolated`). */
export function createCustodySettingsStore(prisma: PrismaClient): CustodySettingsStore {
  return {
    async secp256k1Mode(projectId, environment) {
      const row = await prisma.custodySettings.findUnique({ where: { projectId_environment: { projectId, environment } }, select: { secp256k1Mode: true } });
      return (row?.secp256k1Mode as CustodyMode | undefined) ?? 'isolated';
    },
    async setSecp256k1Mode(projectId, environment, mode) {
      const updatedAt = new Date();
      await prisma.custodySettings.upsert({
        where: { projectId_environment: { projectId, environment } },
        create: { projectId, environment, secp256k1Mode: mode, updatedAt },
        update: { secp256k1Mode: mode, updatedAt },
      });
    },
  };
}

/**
 * Threshold shares re-sealed in place (a fresh OT setup renews both online shares; an abort on the
 * API's side stores its share marked unusable): one transaction replaces each stored share of the
 * same wallet, role and epoch and appends the audit row. False (nothing written) when one of them
 * is no longer stored (a refresh replaced it).
 */
export async function resealThresholdShares(prisma: PrismaClient, walletId: string, shares: EncryptedShare[], action: string): Promise<boolean> {
  try {
    return await prisma.$transaction(async (tx) => {
      const wallet = await tx.wallet.findUnique({ where: { id: walletId }, select: { projectId: true } });
      if (!wallet) throw new Missing();
      for (const share of shares) {
        const { count } = await tx.keyShare.updateMany({
          where: { walletId, role: share.role, epoch: share.epoch },
          data: { kekId: share.kekId, iv: Buffer.from(share.iv), ciphertext: Buffer.from(share.ciphertext) },
        });
        if (count !== 1) throw new Missing();
      }
      await tx.auditLog.create({ data: auditData({ projectId: wallet.projectId, apiKeyId: null, walletId, requestId: null, action, details: { roles: shares.map((s) => s.role) } }) });
      return true;
    });
  } catch (error) {
    if (error instanceof Missing) return false;
    throw error;
  }
}

class Missing extends Error {}
