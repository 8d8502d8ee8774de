import { randomUUID } from 'node:crypto';
import { DuplicateStaffError, type StaffRecord, type StaffRole, type StaffStore } from '@wallet/domain';
import type { Database } from '../database.ts';

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
    // On the driver, one statement: local mode creates its first owner at the first start, and a
    // Prisma query there would load Prisma's query compiler (WebAssembly, ~45 MB resident) into a
    // process at rest. The partner is created on first use (a no-op update returns an existing one).
    async create(partnerName, account) {
      try {
        const [row] = await query<Omit<Row, 'partner'>>(
          `WITH partner AS (
             INSERT INTO partners (id, name) VALUES ($1::uuid, $2) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id
           )
           INSERT INTO staff_accounts (id, partner_id, email, role, password_hash)
           SELECT $3::uuid, partner.id, $4, $5, $6 FROM partner
           RETURNING id::text AS id, partner_id::text AS "partnerId", email, role, password_hash AS "passwordHash",
             created_at AS "createdAt", disabled_at AS "disabledAt"`,
          [randomUUID(), partnerName, account.id, account.email, account.role, account.passwordHash],
        );
        return toRecord({ ...row!, partner: { name: partnerName } });
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw new DuplicateStaffError();
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
