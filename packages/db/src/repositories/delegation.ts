import { randomUUID } from 'node:crypto';
import type { ConsentRecord, ConsentStatus, DelegationStore, ParameterSetRecord } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';
import { toWalletRecord } from './wallets.ts';

const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

type ConsentRow = Omit<ConsentRecord, 'status'> & { status: string };
const toConsent = (row: ConsentRow): ConsentRecord => ({
  userId: row.userId,
  walletId: row.walletId,
  policyId: row.policyId,
  policyVersion: row.policyVersion,
  status: row.status as ConsentStatus,
  consentedAt: row.consentedAt,
  revokedAt: row.revokedAt,
  updatedAt: row.updatedAt,
});

type SetRow = { userId: string; walletId: string; policyId: string; revision: number; values: Prisma.JsonValue; updatedAt: Date };
const toSet = (row: SetRow): ParameterSetRecord => ({
  userId: row.userId,
  walletId: row.walletId,
  policyId: row.policyId,
  revision: row.revision,
  values: row.values as Record<string, string>,
  updatedAt: row.updatedAt,
});

/**
 * Delegation consents and user parameter values. A parameter save is revision-checked by the write
 * itself (insert that skips an existing row, or update guarded by `revision = expected`), so of
 * concurrent saves with one expected revision exactly one writes.
 */
export function createDelegationStore({ prisma }: Database): DelegationStore {
  return {
    async findUser(userId) {
      return prisma.user.findUnique({ where: { id: userId }, select: { id: true, projectId: true } });
    },

    async claimedWallets(projectId, userId) {
      const rows = await prisma.wallet.findMany({ where: { projectId, claimedByUserId: userId }, orderBy: { id: 'asc' } });
      return rows.map((row) => toWalletRecord(row));
    },

    async findConsent(at, key) {
      const row = await prisma.delegationConsent.findUnique({ where: { projectId_environment_userId_walletId_policyId: { ...at, ...key } } });
      return row ? toConsent(row) : null;
    },

    async listConsents(at, userId, walletId) {
      const rows = await prisma.delegationConsent.findMany({ where: { ...at, userId, walletId }, orderBy: { policyId: 'asc' } });
      return rows.map(toConsent);
    },

    async saveConsent(at, record, audit) {
      const key = { projectId: at.projectId, environment: at.environment, userId: record.userId, walletId: record.walletId, policyId: record.policyId };
      const data = { policyVersion: record.policyVersion, status: record.status, consentedAt: record.consentedAt, revokedAt: record.revokedAt, updatedAt: record.updatedAt };
      return prisma.$transaction(async (tx) => {
        const row = await tx.delegationConsent.upsert({ where: { projectId_environment_userId_walletId_policyId: key }, create: { ...key, ...data }, update: data });
        await tx.auditLog.create({ data: auditData(audit) });
        return toConsent(row);
      }, transactionOptions);
    },

    async findParameters(at, key) {
      const row = await prisma.userParameterSet.findUnique({ where: { projectId_environment_userId_walletId_policyId: { ...at, ...key } } });
      return row ? toSet(row) : null;
    },

    async saveParameters(at, delegationKey, write, audit) {
      const key = { projectId: at.projectId, environment: at.environment, ...delegationKey };
      const values = write.values as Prisma.InputJsonObject;
      return prisma.$transaction(async (tx) => {
        const { count } =
          write.expectedRevision === 0
            ? await tx.userParameterSet.createMany({ data: [{ ...key, revision: 1, values, updatedAt: write.at }], skipDuplicates: true })
            : await tx.userParameterSet.updateMany({ where: { ...key, revision: write.expectedRevision }, data: { revision: { increment: 1 }, values, updatedAt: write.at } });
        const row = await tx.userParameterSet.findUnique({ where: { projectId_environment_userId_walletId_policyId: key } });
        if (count === 0 || !row) return { ok: false as const, currentRevision: row?.revision ?? 0 };
        await tx.userParameterRevision.create({ data: { id: randomUUID(), ...key, revision: row.revision, policyVersion: write.policyVersion, values, createdAt: write.at } });
        const record = toSet(row);
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return { ok: true as const, record };
      }, transactionOptions);
    },

    async parameterHistory(at, key, beforeRevision, take) {
      const rows = await prisma.userParameterRevision.findMany({
        where: { ...at, ...key, ...(beforeRevision === undefined ? {} : { revision: { lt: beforeRevision } }) },
        orderBy: { revision: 'desc' },
        take,
      });
      return rows.map((row) => ({ revision: row.revision, policyVersion: row.policyVersion, values: row.values as Record<string, string>, createdAt: row.createdAt }));
    },
  };
}
