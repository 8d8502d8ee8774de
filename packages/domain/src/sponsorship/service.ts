import { z } from 'zod';
import { conflict, invalidRequest, notFound } from '../errors.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import type { PolicyScope } from '../policies/service.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { BudgetReservationStatus, SponsorshipStore, UtcDay } from './ports.ts';
import {
  MAX_UINT256,
  settingsView,
  sponsorshipDefaults,
  sponsorshipLimitsSchema,
  utcDay,
  verbChange,
  type SponsorshipSettingsView,
  type SponsorshipVerb,
} from './settings.ts';

export type SponsorshipAdmission =
  | { state: 'disabled'; settings: SponsorshipSettingsView }
  | { state: 'paused'; settings: SponsorshipSettingsView }
  | { state: 'enabled'; settings: SponsorshipSettingsView };

export type BudgetReservation =
  | { ok: true; operationId: string; day: UtcDay; reservedWei: string; usedTodayWei: string; dailyBudgetWei: string }
  | { ok: false; code: 'SPONSORSHIP_BUDGET_EXCEEDED'; message: string; day: UtcDay; requestedWei: string; usedTodayWei: string; dailyBudgetWei: string };

export interface BudgetSettlement {
  operationId: string;
  status: BudgetReservationStatus;
  /** What the operation now counts on its day (its actual cost once settled, 0 once released). */
  heldWei: string;
}

/** The settings and what today's (UTC) budget has used: the console's and GraphQL's read. */
export interface SponsorshipState extends SponsorshipSettingsView {
  budgetToday: { day: UtcDay; usedWei: string; remainingWei: string };
}

const operationIdSchema = z.string().min(1).max(200);

/** A cost in wei: a bigint or a decimal string, 0 to 2^256 - 1. */
function weiAmount(name: string, value: bigint | string): bigint {
  const amount = typeof value === 'bigint' ? value : /^(0|[1-9]\d{0,77})$/.test(value) ? BigInt(value) : -1n;
  if (amount < 0n || amount > MAX_UINT256) throw invalidRequest(`${name} must be an integer in wei from 0 to 2^256 - 1`);
  return amount;
}

const location = (at: PolicyLocation): PolicyLocation => ({ projectId: at.projectId, environment: at.environment });

/**
 * Gas sponsorship per project and environment: the settings (off until enabled, every change
 * audited), admission of new sponsored operations, and the daily budget that reservations draw on.
 */
export function createSponsorship({ store, clock }: { store: SponsorshipStore; clock: Clock }) {
  const read = async (at: PolicyLocation) => settingsView(at, await store.find(location(at)));

  return {
    /** Applies a verb (and the amounts given) to the project and environment's settings; audited as `sponsorship.<verb>`. */
    async change(scope: PolicyScope, verb: SponsorshipVerb, limits: unknown = {}): Promise<SponsorshipSettingsView> {
      if (!Object.hasOwn(verbChange, verb)) throw invalidRequest(`Unknown sponsorship change ${String(verb)}`);
      const amounts = parseInput(sponsorshipLimitsSchema, limits);
      const at = location(scope);
      const record = await store.change(
        at,
        { ...verbChange[verb], ...amounts, updatedAt: clock.now(), updatedBy: scope.actor },
        sponsorshipDefaults,
        (stored) => ({
          projectId: scope.projectId,
          apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
          walletId: null,
          requestId: scope.requestId ?? null,
          action: `sponsorship.${verb}`,
          details: {
            environment: scope.environment,
            actor: scope.actor,
            enabled: stored.enabled,
            paused: stored.paused,
            gasCapWei: stored.gasCapWei.toString(),
            dailyBudgetWei: stored.dailyBudgetWei.toString(),
          },
        }),
      );
      return settingsView(at, record);
    },

    /** Whether a new sponsored operation may start (pure read). */
    async sponsorshipAdmission(at: PolicyLocation): Promise<SponsorshipAdmission> {
      const settings = await read(at);
      if (!settings.enabled) return { state: 'disabled', settings };
      if (settings.paused) return { state: 'paused', settings };
      return { state: 'enabled', settings };
    },

    /**
     * Reserves the operation's maximum cost on today's (UTC) budget of the project and
     * environment, atomically; a retry with the same operation id answers the reservation it holds.
     */
    async reserveSponsorshipBudget(at: PolicyLocation, operationId: string, maxCostWei: bigint | string): Promise<BudgetReservation> {
      const id = parseInput(operationIdSchema, operationId);
      const amount = weiAmount('maxCostWei', maxCostWei);
      const day = utcDay(clock.now());
      const where = location(at);
      const outcome = await store.reserve(where, day, id, amount, sponsorshipDefaults.dailyBudgetWei);
      if (outcome.outcome === 'conflict') throw conflict(`Operation ${id} holds a sponsorship reservation of another project or environment`);
      const budget = outcome.budgetWei.toString();
      if (outcome.outcome === 'exceeded') {
        return {
          ok: false,
          code: 'SPONSORSHIP_BUDGET_EXCEEDED',
          message: `Sponsoring up to ${amount} wei more would exceed the daily sponsorship budget of ${budget} wei (${outcome.dayUsedWei} wei used on ${day} UTC)`,
          day,
          requestedWei: amount.toString(),
          usedTodayWei: outcome.dayUsedWei.toString(),
          dailyBudgetWei: budget,
        };
      }
      return { ok: true, operationId: id, day: outcome.day, reservedWei: outcome.heldWei.toString(), usedTodayWei: outcome.dayUsedWei.toString(), dailyBudgetWei: budget };
    },

    /**
     * Raises the operation's reservation to a replacement's maximum cost, atomically, within the
     * day's budget (the day the reservation was made on); never lowers it. Refused like a new
     * reservation when the difference does not fit, or when the operation holds no open reservation.
     */
    async raiseSponsorshipBudget(at: PolicyLocation, operationId: string, maxCostWei: bigint | string): Promise<BudgetReservation> {
      const id = parseInput(operationIdSchema, operationId);
      const amount = weiAmount('maxCostWei', maxCostWei);
      const outcome = await store.raise(location(at), id, amount, sponsorshipDefaults.dailyBudgetWei);
      if (outcome.outcome === 'unknown' || outcome.outcome === 'not_reserved') throw conflict(`Operation ${id} holds no open sponsorship reservation to raise`);
      const day = utcDay(clock.now());
      const budget = outcome.budgetWei.toString();
      if (outcome.outcome === 'exceeded') {
        const extra = amount - outcome.heldWei;
        return {
          ok: false,
          code: 'SPONSORSHIP_BUDGET_EXCEEDED',
          message: `Sponsoring up to ${extra} wei more would exceed the daily sponsorship budget of ${budget} wei (${outcome.dayUsedWei} wei used)`,
          day,
          requestedWei: extra.toString(),
          usedTodayWei: outcome.dayUsedWei.toString(),
          dailyBudgetWei: budget,
        };
      }
      return { ok: true, operationId: id, day, reservedWei: outcome.heldWei.toString(), usedTodayWei: outcome.dayUsedWei.toString(), dailyBudgetWei: budget };
    },

    /** Replaces the operation's reservation by its actual cost (idempotent; a released one is counted again). */
    async settleSponsorshipBudget(operationId: string, actualCostWei: bigint | string): Promise<BudgetSettlement> {
      const id = parseInput(operationIdSchema, operationId);
      const settled = await store.settle(id, weiAmount('actualCostWei', actualCostWei));
      if (!settled) throw notFound('Sponsorship reservation');
      return { operationId: id, status: 'settled', heldWei: settled.heldWei.toString() };
    },

    /** Gives the operation's reservation back (only while reserved; idempotent). */
    async releaseSponsorshipBudget(operationId: string): Promise<BudgetSettlement> {
      const id = parseInput(operationIdSchema, operationId);
      const released = await store.release(id);
      if (!released) throw notFound('Sponsorship reservation');
      const status = released.foundStatus === 'reserved' ? 'released' : released.foundStatus;
      return { operationId: id, status, heldWei: released.heldWei.toString() };
    },

    /** The settings with today's (UTC) budget use. */
    async get(at: PolicyLocation): Promise<SponsorshipState> {
      const where = location(at);
      const day = utcDay(clock.now());
      const [settings, used] = await Promise.all([read(where), store.usedOn(where, day)]);
      const remaining = BigInt(settings.dailyBudgetWei) - used;
      return { ...settings, budgetToday: { day, usedWei: used.toString(), remainingWei: (remaining > 0n ? remaining : 0n).toString() } };
    },
  };
}

export type Sponsorship = ReturnType<typeof createSponsorship>;
