import { randomUUID } from 'node:crypto';
import { DuplicateStaffError, type StaffRecord, type StaffRole, type StaffStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import { isUniqueViolation } from './prisma-errors.ts';

type Row = {
  id: string;
  partnerId: string;
  email: string;
  role: string;
  passwordHash: string;
  createdAt: Date;
  disabledAt: Date | null;
  partner: { name: string };
};

const withPartner = { partner: { select: { name: true } } } as const;

const toRecord = ({ partner, ...row }: Row): StaffRecord => ({ ...row, role: row.role as StaffRole, partnerName: partner.name });

export function createStaffStore({ prisma, query }: Database): StaffStore {
  return {
    async create(partnerName, account) {
      const partner = await prisma.partner.upsert({ where: { name: partnerName }, create: { id: randomUUID(), name: partnerName }, update: {} });
      try {
        return toRecord(await prisma.staffAccount.create({ data: { ...account, partnerId: partner.id }, include: withPartner }));
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateStaffError();
        throw error;
      }
    },
    async findByEmail(email) {
      const row = await prisma.staffAccount.findUnique({ where: { email }, include: withPartner });
      return row ? toRecord(row) : null;
    },
    // On the driver: local mode counts at every start, and a Prisma query there would load Prisma's
    // query compiler (WebAssembly, ~45 MB resident) into a process at rest.
    count: async () => (await query<{ n: number }>('SELECT count(*)::int AS n FROM staff_accounts'))[0]!.n,
    async listByPartner(partnerId) {
      const rows = await prisma.staffAccount.findMany({ where: { partnerId }, include: withPartner, orderBy: { createdAt: 'asc' } });
      return rows.map(toRecord);
    },
    async createSession(session) {
      await prisma.staffSession.create({ data: session });
    },
    async findActiveSession(tokenHash, now) {
      const session = await prisma.staffSession.findUnique({ where: { tokenHash }, include: { staff: { include: withPartner } } });
      if (!session || session.revokedAt || session.expiresAt <= now || session.staff.disabledAt) return null;
      return { sessionId: session.id, expiresAt: session.expiresAt, staff: toRecord(session.staff) };
    },
    async revokeSession(tokenHash, now) {
      await prisma.staffSession.updateMany({ where: { tokenHash, revokedAt: null }, data: { revokedAt: now } });
    },
    async revokeAllSessions(staffId, now) {
      const { count } = await prisma.staffSession.updateMany({ where: { staffId, revokedAt: null }, data: { revokedAt: now } });
      return count;
    },
  };
}
