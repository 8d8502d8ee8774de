import { describe, expect, it } from 'vitest';
import { backoffMs, DEFAULT_RETRY, retryAfterMs } from './retrying-fetch.ts';

describe('retry timing', () => {
  it('reads Retry-After as seconds or an HTTP-date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });

  it('backs off exponentially with jitter in [0.5, 1] of the step, capped', () => {
    const settings = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4].map((retry) => backoffMs(retry, settings, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect([0, 1, 2, 3, 4].map((retry) => backoffMs(retry, settings, () => 0))).toEqual([50, 100, 200, 400, 500]);
  });
});
