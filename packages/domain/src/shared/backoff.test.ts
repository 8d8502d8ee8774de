import { describe, expect, it } from 'vitest';
import { exponentialBackoffMs } from './backoff.ts';

describe('exponentialBackoffMs', () => {
  it('doubles from the base for each consecutive failure and stops at the cap', () => {
    expect([1, 2, 3, 4].map((n) => exponentialBackoffMs(n, 100, 500))).toEqual([100, 200, 400, 500]);
  });
  it('treats attempt 0 like the first and never overflows', () => {
    expect(exponentialBackoffMs(0, 100, 500)).toBe(100);
    expect(exponentialBackoffMs(10_000, 1, 3_600_000)).toBe(3_600_000);
  });
});
