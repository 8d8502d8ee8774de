import { describe, expect, it } from 'vitest';
import { missingNonces } from './nonce-gaps.ts';

describe('missingNonces', () => {
  it('lists the nonces between the chain and the lowest waiting record that nothing holds', () => {
    expect(missingNonces(5, 9, [6, 8])).toEqual([5, 7]);
    expect(missingNonces(5, 9, [])).toEqual([5, 6, 7, 8]);
    expect(missingNonces(5, 9, [5, 6, 7, 8, 12])).toEqual([]);
  });

  it('finds nothing when the chain is at or past the lowest waiting record', () => {
    expect(missingNonces(9, 9, [])).toEqual([]);
    expect(missingNonces(10, 9, [])).toEqual([]);
  });
});
