import { formatUnits } from '@wallet/domain/chains/amounts.ts';

/** What the Sponsorship page reads (tRPC `sponsorship.get`). */
export interface SponsorshipView {
  enabled: boolean;
  paused: boolean;
  gasCapWei: string;
  dailyBudgetWei: string;
  updatedAt: string | null;
  updatedBy: { type: string; id: string | null } | null;
  updatedByEmail: string | null;
  budgetToday: { day: string; usedWei: string; remainingWei: string };
}

const WEI = /^\d+$/;

/** `0.001 ETH` for `1000000000000000`; the value unchanged when it is not whole wei. */
export const formatEth = (wei: string) => (WEI.test(wei) ? `${formatUnits(wei, 18)} ETH` : wei);

/** What a typed amount is in ETH (`= 0.002 ETH`), or null when it is not a whole number of wei (the API names the problem). */
export function ethPreview(typed: string): string | null {
  const value = typed.trim();
  return WEI.test(value) ? `= ${formatEth(value)}` : null;
}

/** `paused` only matters while enabled: a disabled project admits nothing either way. */
export const sponsorshipState = (view: Pick<SponsorshipView, 'enabled' | 'paused'>): 'disabled' | 'enabled' | 'paused' =>
  !view.enabled ? 'disabled' : view.paused ? 'paused' : 'enabled';

/** Who changed the settings last: the staff member's email, `operator (CLI)`, or the actor's kind and short id. */
export function changedBy(view: Pick<SponsorshipView, 'updatedBy' | 'updatedByEmail'>): string {
  if (view.updatedByEmail) return view.updatedByEmail;
  const actor = view.updatedBy;
  if (!actor) return '—';
  if (actor.type === 'operator') return 'operator (CLI)';
  return `${actor.type}${actor.id ? ` ${actor.id.slice(0, 8)}…` : ''}`;
}

/** Today's use as a whole percentage of the daily budget, 0-100 (a budget lowered below the use shows 100). */
export function budgetUsedPercent(usedWei: string, dailyBudgetWei: string): number {
  const used = BigInt(usedWei);
  const budget = BigInt(dailyBudgetWei);
  if (budget <= 0n) return 100;
  const percent = (used * 100n) / budget;
  return Number(percent > 100n ? 100n : percent);
}

/** The amounts of the limits form that differ from the stored ones (trimmed); the API validates them. */
export function changedLimits(typed: { gasCapWei: string; dailyBudgetWei: string }, stored: Pick<SponsorshipView, 'gasCapWei' | 'dailyBudgetWei'>) {
  const gasCapWei = typed.gasCapWei.trim();
  const dailyBudgetWei = typed.dailyBudgetWei.trim();
  return {
    ...(gasCapWei !== stored.gasCapWei && { gasCapWei }),
    ...(dailyBudgetWei !== stored.dailyBudgetWei && { dailyBudgetWei }),
  };
}
