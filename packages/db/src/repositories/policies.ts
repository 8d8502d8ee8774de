import { randomUUID } from 'node:crypto';
import type { Environment, PolicyActor, PolicyDocument, PolicyStatus, PolicyStore, PolicyVersionRecord, WalletType } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';

const withPolicy = { policy: { select: { projectId: true, environment: true, policyId: true } } } as const;
type Row = Prisma.PolicyVersionGetPayload<{ include: typeof withPolicy }>;

const actor = (type: string | null, id: string | null): PolicyActor | null =>
  type === null ? null : type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor);

function toRecord(row: Row): PolicyVersionRecord {
  return {
    projectId: row.policy.projectId,
    environment: row.policy.environment as Environment,
    policyId: row.policy.policyId,
    version: row.version,
    status: row.status as PolicyStatus,
    walletType: row.walletType as WalletType,
    document: row.document as unknown as PolicyDocument,
    effectiveFrom: row.effectiveFrom,
    effectiveUntil: row.effectiveUntil,
    createdAt: row.createdAt,
    createdBy: actor(row.createdByType, row.createdById) as PolicyActor,
    deactivatedAt: row.deactivatedAt,
    deactivatedBy: actor(row.deactivatedByType, row.deactivatedById),
    replacedBy: row.replacedBy,
  };
}

// Applies of one policy queue on its row lock; give queued transactions room before Prisma gives up.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

/**
 * Embedded PGlite is opened by one process only (the CLI goes through the running service), so
 * every change passes through this process: a counter kept with the database is the stamp, and
 * signatures skip the stamp query. PostgreSQL is shared by many processes and counts rows.
 */
const localChanges = new WeakMap<Database, { count: number }>();

export function createPolicyStore(database: Database): PolicyStore {
  const { prisma } = database;
  const local = database.kind === 'pglite' ? (localChanges.get(database) ?? { count: 0 }) : null;
  if (local) localChanges.set(database, local);
  const changed = <T>(result: T): T => {
    if (local) local.count++;
    return result;
  };

  const ofPolicy = (at: { projectId: string; environment: string }, policyId: string) => ({
    policy: { projectId: at.projectId, environment: at.environment, policyId },
  });

  return {
    async apply(at, input, audit, checkPrevious) {
      return prisma.$transaction(async (tx) => {
        // Creating or bumping the counter row takes its lock until commit, so concurrent applies
        // of one id number their versions one after another and see each other's active version.
        const [policy] = await tx.$queryRaw<Array<{ id: string; latest_version: number }>>`
          INSERT INTO policies (id, project_id, environment, policy_id, latest_version)
          VALUES (${randomUUID()}::uuid, ${at.projectId}::uuid, ${at.environment}, ${input.policyId}, 1)
          ON CONFLICT (project_id, environment, policy_id) DO UPDATE SET latest_version = policies.latest_version + 1
          RETURNING id, latest_version`;
        if (!policy) throw new Error('policies upsert returned no row');
        const version = policy.latest_version;
        if (version > 1 && checkPrevious) {
          const previous = await tx.policyVersion.findUnique({ where: { policyKey_version: { policyKey: policy.id, version: version - 1 } }, include: withPolicy });
          if (previous) checkPrevious(toRecord(previous));
        }
        await tx.policyVersion.updateMany({
          where: { policyKey: policy.id, status: 'active' },
          data: { status: 'inactive', deactivatedAt: input.createdAt, deactivatedByType: input.createdBy.type, deactivatedById: input.createdBy.id, replacedBy: version },
        });
        const document = { ...input.document, version: String(version) };
        const row = await tx.policyVersion.create({
          data: {
            policyKey: policy.id,
            version,
            document: document as unknown as Prisma.InputJsonObject,
            status: 'active',
            walletType: input.walletType,
            effectiveFrom: input.effectiveFrom,
            effectiveUntil: input.effectiveUntil,
            createdAt: input.createdAt,
            createdByType: input.createdBy.type,
            createdById: input.createdBy.id,
          },
          include: withPolicy,
        });
        const record = toRecord(row);
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return record;
      }, transactionOptions).then(changed);
    },

    async deactivate(at, policyId, change, audit) {
      return prisma.$transaction(async (tx) => {
        const [updated] = await tx.policyVersion.updateManyAndReturn({
          where: { ...ofPolicy(at, policyId), status: 'active' },
          data: { status: 'inactive', deactivatedAt: change.at, deactivatedByType: change.by.type, deactivatedById: change.by.id },
          include: withPolicy,
        });
        if (!updated) return null;
        const record = toRecord(updated);
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return record;
      }, transactionOptions).then(changed);
    },

    async findActive(at, policyId) {
      const row = await prisma.policyVersion.findFirst({ where: { ...ofPolicy(at, policyId), status: 'active' }, include: withPolicy });
      return row ? toRecord(row) : null;
    },

    async listActive(at, now, walletType) {
      const rows = await prisma.policyVersion.findMany({
        where: {
          policy: { projectId: at.projectId, environment: at.environment },
          status: 'active',
          walletType,
          AND: [
            { OR: [{ effectiveFrom: null }, { effectiveFrom: { lte: now } }] },
            { OR: [{ effectiveUntil: null }, { effectiveUntil: { gt: now } }] },
          ],
        },
        include: withPolicy,
        orderBy: { policy: { policyId: 'asc' } },
      });
      return rows.map(toRecord);
    },

    async projectExists(projectId) {
      return (await prisma.project.count({ where: { id: projectId } })) > 0;
    },

    async listAllActive(at) {
      const rows = await prisma.policyVersion.findMany({
        where: { policy: { projectId: at.projectId, environment: at.environment }, status: 'active' },
        include: withPolicy,
        orderBy: { policy: { policyId: 'asc' } },
      });
      return rows.map(toRecord);
    },

    // Versions are never deleted: an apply adds one (total grows), a deactivation only makes one
    // inactive (active shrinks), so the pair never repeats.
    async activeStamp(at) {
      if (local) return `local:${local.count}`;
      const [row] = await prisma.$queryRaw<Array<{ total: number; active: number }>>`
        SELECT count(*)::int AS total, (count(*) FILTER (WHERE v.status = 'active'))::int AS active
        FROM policy_versions v JOIN policies p ON p.id = v.policy_key
        WHERE p.project_id = ${at.projectId}::uuid AND p.environment = ${at.environment}`;
      return `${row?.total ?? 0}:${row?.active ?? 0}`;
    },

    async listVersions(at, policyId) {
      const rows = await prisma.policyVersion.findMany({ where: ofPolicy(at, policyId), include: withPolicy, orderBy: { version: 'desc' } });
      return rows.map(toRecord);
    },
  };
}
