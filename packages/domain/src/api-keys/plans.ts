import type { Plan } from '../ports.ts';

export const plans = ['free', 'starter', 'growth', 'scale'] as const;
export const environments = ['development', 'production'] as const;

const perMinute: Record<Exclude<Plan, 'scale'>, number> = { free: 30, starter: 30, growth: 1000 };
const SCALE_DEFAULT_PER_MINUTE = 10_000;

/** Requests per minute shared by every /v1 request of one key; 0 means unlimited (scale plan only). */
export function requestsPerMinute(plan: Plan, configured: number | null): number {
  if (plan === 'scale') return configured ?? SCALE_DEFAULT_PER_MINUTE;
  return perMinute[plan];
}
