import type { AuditEntry } from '../ports.ts';
import type { PolicyActor, PolicyLocation } from '../policies/ports.ts';

/** The stored sponsorship settings of a project and environment (amounts in wei). */
export interface SponsorshipSettingsRecord {
  enabled: boolean;
  paused: boolean;
  gasCapWei: bigint;
  dailyBudgetWei: bigint;
  updatedAt: Date;
  updatedBy: PolicyActor;
}

/** What one change sets; fields left out keep their stored value (or the default on a first write). */
export interface SponsorshipSettingsChange {
  enabled?: boolean;
  paused?: boolean;
  gasCapWei?: bigint;
  dailyBudgetWei?: bigint;
  updatedAt: Date;
  updatedBy: PolicyActor;
}

/** A UTC day as `YYYY-MM-DD`. */
export type UtcDay = string;

/** What a reservation found; `budgetWei` is the daily budget it was checked against. */
export type BudgetReserveOutcome =
  | { outcome: 'reserved' | 'existing'; dayUsedWei: bigint; heldWei: bigint; day: UtcDay; budgetWei: bigint }
  | { outcome: 'exceeded'; dayUsedWei: bigint; budgetWei: bigint }
  | { outcome: 'conflict' };

/** What a raise found: `existing` when the reservation already held as much. */
export type BudgetRaiseOutcome =
  | { outcome: 'raised' | 'existing' | 'exceeded'; dayUsedWei: bigint; heldWei: bigint; budgetWei: bigint }
  | { outcome: 'not_reserved' }
  | { outcome: 'unknown' };

export type BudgetReservationStatus = 'reserved' | 'settled' | 'released';

export interface SponsorshipStore {
  /** The settings row; null when never written (= the defaults, disabled). */
  find(at: PolicyLocation): Promise<SponsorshipSettingsRecord | null>;
  /**
   * Applies the change (missing fields of a first write take `defaults`) and appends the audit
   * row, in one transaction; answers the stored settings.
   */
  change(
    at: PolicyLocation,
    change: SponsorshipSettingsChange,
    defaults: Pick<SponsorshipSettingsRecord, 'enabled' | 'paused' | 'gasCapWei' | 'dailyBudgetWei'>,
    audit: (record: SponsorshipSettingsRecord) => AuditEntry,
  ): Promise<SponsorshipSettingsRecord>;
  /**
   * One statement: reserves `amountWei` on the day's total when it stays within the stored daily
   * budget (`defaultBudgetWei` when no settings row exists); once per operation id.
   */
  reserve(at: PolicyLocation, day: UtcDay, operationId: string, amountWei: bigint, defaultBudgetWei: bigint): Promise<BudgetReserveOutcome>;
  /**
   * One statement: raises a `reserved` operation's reservation to `amountWei` when its day's total
   * stays within the stored daily budget (`defaultBudgetWei` without settings); never lowers it.
   */
  raise(at: PolicyLocation, operationId: string, amountWei: bigint, defaultBudgetWei: bigint): Promise<BudgetRaiseOutcome>;
  /** Replaces the reservation by the actual cost; answers the status found (null: unknown id). */
  settle(operationId: string, actualWei: bigint): Promise<{ foundStatus: BudgetReservationStatus; heldWei: bigint } | null>;
  /** Takes a reserved amount off its day; answers the status found (null: unknown id) and what the operation still holds. */
  release(operationId: string): Promise<{ foundStatus: BudgetReservationStatus; heldWei: bigint } | null>;
  /** The day's total (reserved + settled), 0 when nothing was reserved. */
  usedOn(at: PolicyLocation, day: UtcDay): Promise<bigint>;
}
