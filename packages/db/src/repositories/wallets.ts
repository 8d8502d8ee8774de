import type {
  AuditEntry,
  EncryptedShare,
  ShareRole,
  WalletRecord,
  WalletStore,
  WalletType,
  WalletStatus,
} from '@wallet/domain';
import { DuplicateWalletError } from '@wallet/domain';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';
import { isUniqueViolation } from './prisma-errors.ts';

type Row = Prisma.WalletGetPayload<object>;

function toRecord(row: Row): WalletRecord {
  return {
    ...row,
    type: row.type as WalletType,
    scheme: row.scheme as WalletRecord['scheme'],
    status: row.status as WalletStatus,
  };
}

export function createWalletStore(prisma: PrismaClient): WalletStore {
  async function existingId(
    projectId: string,
    identity: { userIdentifierType: string; userIdentifier: string; type: string; scheme: string },
  ) {
    const existing = await prisma.wallet.findUnique({
      where: {
        projectId_userIdentifierType_userIdentifier_type_scheme: {
          projectId,
          userIdentifierType: identity.userIdentifierType,
          userIdentifier: identity.userIdentifier,
          type: identity.type,
          scheme: identity.scheme,
        },
      },
      select: { id: true },
    });
    return existing?.id;
  }

  return {
    async create(wallet, shares, audit) {
      try {
        const [row] = await prisma.$transaction([
          prisma.wallet.create({ data: wallet }),
          prisma.keyShare.createMany({
            data: shares.map((share) => ({
              walletId: wallet.id,
              role: share.role,
              kekId: share.kekId,
              iv: Buffer.from(share.iv),
              ciphertext: Buffer.from(share.ciphertext),
            })),
          }),
          prisma.auditLog.create({ data: auditData(audit) }),
        ]);
        return toRecord(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const id = await existingId(wallet.projectId, wallet);
        if (!id) throw error;
        throw new DuplicateWalletError(id);
      }
    },

    async findInProject(projectId, walletId) {
      const row = await prisma.wallet.findFirst({ where: { id: walletId, projectId } });
      return row ? toRecord(row) : null;
    },

    async list(filter) {
      const rows = await prisma.wallet.findMany({
        where: {
          projectId: filter.projectId,
          type: filter.type,
          status: filter.status,
          userIdentifier: filter.userIdentifier,
          userIdentifierType: filter.userIdentifierType,
          address: filter.address,
          ...(filter.after
            ? {
                OR: [
                  { createdAt: { lt: filter.after.createdAt } },
                  { createdAt: filter.after.createdAt, id: { lt: filter.after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: filter.limit,
      });
      return rows.map(toRecord);
    },

    async updateIdentifier(projectId, walletId, change, audit: AuditEntry) {
      try {
        const [updated] = await prisma.$transaction([
          prisma.wallet.updateManyAndReturn({ where: { id: walletId, projectId }, data: change }),
          prisma.auditLog.create({ data: auditData(audit) }),
        ]);
        return updated[0] ? toRecord(updated[0]) : null;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const current = await prisma.wallet.findFirst({ where: { id: walletId, projectId } });
        const id = current && (await existingId(projectId, { ...current, ...change }));
        if (!id) throw error;
        throw new DuplicateWalletError(id);
      }
    },

    async findShares(walletId): Promise<EncryptedShare[]> {
      const rows = await prisma.keyShare.findMany({ where: { walletId } });
      return rows.map((row) => ({
        role: row.role as ShareRole,
        kekId: row.kekId,
        iv: new Uint8Array(row.iv),
        ciphertext: new Uint8Array(row.ciphertext),
      }));
    },
  };
}
