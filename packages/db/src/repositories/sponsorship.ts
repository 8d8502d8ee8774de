import type { PolicyActor, SponsorshipSettingsRecord, SponsorshipStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import { auditData } from './audit.ts';

const actor = (type: string, id: string | null): PolicyActor => (type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor));

interface SettingsRow {
  enabled: boolean;
  paused: boolean;
  gasCapWei: { toFixed(): string };
  dailyBudgetWei: { toFixed(): string };
  updatedAt: Date;
  updatedByType: string;
  updatedById: string | null;
}

const toRecord = (row: SettingsRow): SponsorshipSettingsRecord => ({
  enabled: row.enabled,
  paused: row.paused,
  gasCapWei: BigInt(row.gasCapWei.toFixed()),
  dailyBudgetWei: BigInt(row.dailyBudgetWei.toFixed()),
  updatedAt: row.updatedAt,
  updatedBy: actor(row.updatedByType, row.updatedById),
});

const optional = (value: bigint | undefined) => (value === undefined ? undefined : value.toString());

/**
 * Sponsorship settings (Prisma) and the daily budget (one statement per call on the driver, see
 * `sponsorship_budget_reserve|raise|settle|release` in their migrations).
 */
export function createSponsorshipStore({ prisma, query }: Database): SponsorshipStore {
  return {
    async find(at) {
      const row = await prisma.sponsorshipSettings.findUnique({ where: { projectId_environment: { projectId: at.projectId, environment: at.environment } } });
      return row ? toRecord(row) : null;
    },

    async change(at, change, defaults, audit) {
      const who = { updatedAt: change.updatedAt, updatedByType: change.updatedBy.type, updatedById: change.updatedBy.id };
      return prisma.$transaction(async (tx) => {
        const row = await tx.sponsorshipSettings.upsert({
          where: { projectId_environment: { projectId: at.projectId, environment: at.environment } },
          create: {
            projectId: at.projectId,
            environment: at.environment,
            enabled: change.enabled ?? defaults.enabled,
            paused: change.paused ?? defaults.paused,
            gasCapWei: (change.gasCapWei ?? defaults.gasCapWei).toString(),
            dailyBudgetWei: (change.dailyBudgetWei ?? defaults.dailyBudgetWei).toString(),
            ...who,
          },
          update: { enabled: change.enabled, paused: change.paused, gasCapWei: optional(change.gasCapWei), dailyBudgetWei: optional(change.dailyBudgetWei), ...who },
        });
        const record = toRecord(row);
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return record;
      });
    },

    async reserve(at, day, operationId, amountWei, defaultBudgetWei) {
      const [row] = await query<{ outcome: string; day_used: string | null; held: string | null; held_day: string | null; budget: string }>(
        `SELECT r.outcome, r.day_used::text AS day_used, r.held::text AS held, to_char(r.held_day, 'YYYY-MM-DD') AS held_day, s.budget::text AS budget
         FROM (SELECT coalesce(
                 (SELECT daily_budget_wei FROM sponsorship_settings WHERE project_id = $1::uuid AND environment = $2),
                 $6::numeric) AS budget) s,
              sponsorship_budget_reserve($1::uuid, $2, $3::date, $4, $5::numeric, s.budget) r`,
        [at.projectId, at.environment, day, operationId, amountWei.toString(), defaultBudgetWei.toString()],
      );
      const budgetWei = BigInt(row!.budget);
      switch (row!.outcome) {
        case 'conflict':
          return { outcome: 'conflict' };
        case 'exceeded':
          return { outcome: 'exceeded', dayUsedWei: BigInt(row!.day_used ?? 0), budgetWei };
        case 'reserved':
        case 'existing':
          return { outcome: row!.outcome, dayUsedWei: BigInt(row!.day_used ?? 0), heldWei: BigInt(row!.held!), day: row!.held_day!, budgetWei };
        default:
          throw new Error(`sponsorship_budget_reserve answered ${row!.outcome}`);
      }
    },

    async raise(at, operationId, amountWei, defaultBudgetWei) {
      const [row] = await query<{ outcome: string; day_used: string | null; held: string | null; budget: string }>(
        `SELECT r.outcome, r.day_used::text AS day_used, r.held::text AS held, s.budget::text AS budget
         FROM (SELECT coalesce(
                 (SELECT daily_budget_wei FROM sponsorship_settings WHERE project_id = $1::uuid AND environment = $2),
                 $5::numeric) AS budget) s,
              sponsorship_budget_raise($3, $4::numeric, s.budget) r`,
        [at.projectId, at.environment, operationId, amountWei.toString(), defaultBudgetWei.toString()],
      );
      const outcome = row!.outcome;
      if (outcome === 'unknown' || outcome === 'not_reserved') return { outcome };
      if (outcome !== 'raised' && outcome !== 'existing' && outcome !== 'exceeded') throw new Error(`sponsorship_budget_raise answered ${outcome}`);
      return { outcome, dayUsedWei: BigInt(row!.day_used ?? 0), heldWei: BigInt(row!.held ?? 0), budgetWei: BigInt(row!.budget) };
    },

    async settle(operationId, actualWei) {
      const [row] = await query<{ found_status: string; held: string | null }>(
        'SELECT found_status, held::text AS held FROM sponsorship_budget_settle($1, $2::numeric)',
        [operationId, actualWei.toString()],
      );
      if (row!.found_status === 'unknown') return null;
      return { foundStatus: row!.found_status as 'reserved', heldWei: BigInt(row!.held!) };
    },

    async release(operationId) {
      const [row] = await query<{ found_status: string; held: string | null }>('SELECT found_status, held::text AS held FROM sponsorship_budget_release($1)', [operationId]);
      if (row!.found_status === 'unknown') return null;
      return { foundStatus: row!.found_status as 'reserved', heldWei: BigInt(row!.held ?? 0) };
    },

    async usedOn(at, day) {
      const rows = await query<{ used: string }>('SELECT used::text AS used FROM sponsorship_budget WHERE project_id = $1::uuid AND environment = $2 AND day = $3::date', [
        at.projectId,
        at.environment,
        day,
      ]);
      return BigInt(rows[0]?.used ?? 0);
    },
  };
}
