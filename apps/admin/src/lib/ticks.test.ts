import { describe, expect, it } from 'vitest';
import { countTicks } from './ticks.ts';

describe('countTicks', () => {
  it('gives whole, distinct, evenly spaced ticks from 0 to at least the maximum', () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(1)).toEqual([0, 1]);
    expect(countTicks(2)).toEqual([0, 1, 2]);
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(5)).toEqual([0, 2, 4, 6]);
    expect(countTicks(8)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(10)).toEqual([0, 5, 10]);
    expect(countTicks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(countTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });

  it('never repeats a tick and always covers the maximum, for every maximum up to 10,000', () => {
    for (let max = 0; max <= 10_000; max++) {
      const ticks = countTicks(max);
      expect(new Set(ticks).size).toBe(ticks.length);
      expect(ticks.every((t) => Number.isInteger(t))).toBe(true);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      const step = ticks[1]! - ticks[0]!;
      expect(ticks.every((t, i) => t === i * step)).toBe(true);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });
});
