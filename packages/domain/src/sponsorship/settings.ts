import { z } from 'zod';
import type { PolicyLocation } from '../policies/ports.ts';
import type { SponsorshipSettingsRecord } from './ports.ts';

export const MAX_UINT256 = (1n << 256n) - 1n;
const DECIMAL = /^[1-9]\d*$/;

/** Per-operation maximum cost when none was set: 0.001 ETH. */
export const DEFAULT_GAS_CAP_WEI = 10n ** 15n;
/** Per project and environment and UTC day when none was set: 0.05 ETH. */
export const DEFAULT_DAILY_BUDGET_WEI = 5n * 10n ** 16n;

export const sponsorshipDefaults = {
  enabled: false,
  paused: false,
  gasCapWei: DEFAULT_GAS_CAP_WEI,
  dailyBudgetWei: DEFAULT_DAILY_BUDGET_WEI,
} as const;

/** A positive amount of wei as a decimal string (no sign, no leading zeros), at most 2^256 - 1. */
export const weiSchema = z
  .string({ error: 'expected a positive integer in wei as a decimal string' })
  .max(78, { error: 'must be at most 2^256 - 1' })
  .regex(DECIMAL, { error: 'expected a positive integer in wei as a decimal string, without sign or leading zeros' })
  .refine((value) => !DECIMAL.test(value) || BigInt(value) <= MAX_UINT256, { error: 'must be at most 2^256 - 1' })
  .transform((value) => BigInt(value));

/** The amounts a settings change may carry (each optional). */
export const sponsorshipLimitsSchema = z.strictObject({
  gasCapWei: weiSchema.optional(),
  dailyBudgetWei: weiSchema.optional(),
});

export type SponsorshipVerb = 'enable' | 'disable' | 'pause' | 'resume' | 'limits';

/**
 * What each verb switches: `pause` keeps `enabled` and refuses new admissions; `resume` clears it;
 * `limits` switches nothing and only sets the amounts given (the console's limits form).
 */
export const verbChange: Record<SponsorshipVerb, { enabled?: boolean; paused?: boolean }> = {
  enable: { enabled: true },
  disable: { enabled: false },
  pause: { paused: true },
  resume: { paused: false },
  limits: {},
};

/** The settings as the CLI prints them and the console reads them (amounts as decimal strings). */
export interface SponsorshipSettingsView {
  projectId: string;
  environment: PolicyLocation['environment'];
  enabled: boolean;
  paused: boolean;
  gasCapWei: string;
  dailyBudgetWei: string;
  updatedAt: string | null;
  updatedBy: SponsorshipSettingsRecord['updatedBy'] | null;
}

/** The stored settings, or the defaults (disabled, no who or when) when none were written. */
export function settingsView(at: PolicyLocation, record: SponsorshipSettingsRecord | null): SponsorshipSettingsView {
  const values = record ?? sponsorshipDefaults;
  return {
    projectId: at.projectId,
    environment: at.environment,
    enabled: values.enabled,
    paused: values.paused,
    gasCapWei: values.gasCapWei.toString(),
    dailyBudgetWei: values.dailyBudgetWei.toString(),
    updatedAt: record ? record.updatedAt.toISOString() : null,
    updatedBy: record?.updatedBy ?? null,
  };
}

/** `YYYY-MM-DD` of the UTC day `at` falls in. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
