import { describe, expect, it } from 'vitest';
import { healthChange } from './delivery.ts';
import { DEFAULT_RETRY_SCHEDULE, nominalRetrySpanMs, retryDelayMs } from './retry.ts';

const HOUR = 3_600_000;

describe('webhook retry schedule', () => {
  it('doubles from 30 s, caps at 6 h, jitters by at most 20 % and spans more than 24 hours', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 19].map((n) => retryDelayMs(n, DEFAULT_RETRY_SCHEDULE, mid))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_840_000, 7_680_000, 15_360_000, 6 * HOUR, 6 * HOUR,
    ]);
    expect(retryDelayMs(3, DEFAULT_RETRY_SCHEDULE, () => 0)).toBe(96_000);
    expect(retryDelayMs(3, DEFAULT_RETRY_SCHEDULE, () => 0.999999)).toBeLessThanOrEqual(144_000);
    expect(nominalRetrySpanMs()).toBe(30_690_000 + 9 * 6 * HOUR);
    // Even with every delay at its shortest jitter the 20 attempts span more than 24 hours.
    expect(nominalRetrySpanMs() * 0.8).toBeGreaterThan(24 * HOUR);
  });

  it('tracks how long an endpoint has been failing', () => {
    const at = (s: number) => new Date(s * 1000);
    expect(healthChange([])).toBeNull();
    expect(healthChange([{ ok: false, attemptedAt: at(1) }, { ok: true, attemptedAt: at(2) }])).toEqual({ kind: 'healthy' });
    expect(healthChange([{ ok: true, attemptedAt: at(1) }, { ok: false, attemptedAt: at(2) }, { ok: false, attemptedAt: at(3) }])).toEqual({
      kind: 'failing',
      since: at(2),
    });
    expect(healthChange([{ ok: false, attemptedAt: at(5) }, { ok: false, attemptedAt: at(6) }])).toEqual({ kind: 'still-failing', firstFailureAt: at(5) });
  });
});
