import { describe, expect, it } from 'vitest';
import { formatGwei, typedCeiling } from './auto-retry.ts';

describe('managed retry helpers', () => {
  it('formats wei per gas in gwei without rounding', () => {
    expect(formatGwei('12500000000')).toBe('12.5 gwei');
    expect(formatGwei('1')).toBe('0.000000001 gwei');
    expect(formatGwei('0')).toBe('0 gwei');
    expect(formatGwei('n/a')).toBe('n/a');
  });

  it('reads an empty ceiling as the built-in one', () => {
    expect(typedCeiling('  ')).toBeNull();
    expect(typedCeiling(' 200000000000 ')).toBe('200000000000');
  });
});
