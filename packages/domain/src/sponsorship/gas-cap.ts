import type { SponsorshipSettingsView } from './settings.ts';

export type GasCapCheck =
  | { ok: true }
  | { ok: false; code: 'SPONSORSHIP_GAS_CAP_EXCEEDED'; message: string; gasCapWei: string; maxCostWei: string };

/**
 * Whether one operation's maximum cost (what its gas limits times its max fee per gas could take
 * from the paymaster deposit) stays within the per-operation cap. Pure.
 */
export function checkGasCap(settings: Pick<SponsorshipSettingsView, 'gasCapWei'>, maxCostWei: bigint): GasCapCheck {
  if (maxCostWei < 0n) throw new RangeError('a maximum cost is never negative');
  const cap = BigInt(settings.gasCapWei);
  if (maxCostWei <= cap) return { ok: true };
  return {
    ok: false,
    code: 'SPONSORSHIP_GAS_CAP_EXCEEDED',
    message: `The operation may cost up to ${maxCostWei} wei of gas, above the sponsorship gas cap of ${cap} wei per operation`,
    gasCapWei: cap.toString(),
    maxCostWei: maxCostWei.toString(),
  };
}
