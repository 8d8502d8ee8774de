import { describe, expect, it } from 'vitest';
import { nextAttemptFees } from './attempts.ts';

describe('nextAttemptFees', () => {
  const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) => ({ maxFeePerGas, maxPriorityFeePerGas });

  it('raises both fields by at least 10 %, rounded up', () => {
    expect(nextAttemptFees(fees(1001n, 101n), fees(0n, 0n), 10_000n)).toEqual({ fees: fees(1102n, 112n) });
  });

  it('goes to the node suggestion where that is higher', () => {
    expect(nextAttemptFees(fees(1000n, 100n), fees(5000n, 300n), 10_000n)).toEqual({ fees: fees(5000n, 300n) });
  });

  it('never offers a priority fee above the fee cap', () => {
    expect(nextAttemptFees(fees(1000n, 1000n), fees(1500n, 2000n), 10_000n)).toEqual({ fees: fees(1500n, 1500n) });
  });

  it('makes no replacement above the ceiling, and says why; the ceiling itself is allowed', () => {
    const refused = nextAttemptFees(fees(1000n, 100n), fees(0n, 0n), 1099n);
    expect(refused).toEqual({ reason: expect.stringMatching(/^ceiling reached: a replacement needs maxFeePerGas 1100, above the ceiling 1099/) });
    expect(nextAttemptFees(fees(1000n, 100n), fees(0n, 0n), 1100n)).toEqual({ fees: fees(1100n, 110n) });
  });
});
