import { describe, expect, it } from 'vitest';
import { createSignerLimits } from './limits.ts';

describe('signer limits', () => {
  it('admits exactly perWalletPerMinute per wallet in any 60 s window', () => {
    let now = 1_000_000;
    const limits = createSignerLimits({ perWalletPerMinute: 3, nativeValueCaps: {}, clock: () => now });
    limits.admit('w1', null);
    now += 10_000;
    limits.admit('w1', null);
    limits.admit('w1', null);
    let refused: unknown;
    try {
      limits.admit('w1', null);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'SIGNER_LIMIT_EXCEEDED', status: 429, details: { limit: 'perWalletPerMinute', walletId: 'w1', max: 3, retryAfterMs: 50_000 } });
    // Another wallet has its own window.
    limits.admit('w2', null);
    // The first admission leaves the window 60 s after it: one more fits, not two.
    now = 1_000_000 + 60_000;
    limits.admit('w1', null);
    expect(() => limits.admit('w1', null)).toThrow(/3 signatures per minute/);
    // Refusals did not count: 10 s later the two of t+10 s leave, two fit.
    now = 1_000_000 + 70_000;
    limits.admit('w1', null);
    limits.admit('w1', null);
    expect(() => limits.admit('w1', null)).toThrow();
  });

  it('evicts wallets idle for a minute', () => {
    let now = 0;
    const limits = createSignerLimits({ perWalletPerMinute: 10, nativeValueCaps: {}, clock: () => now });
    for (let i = 0; i < 1000; i++) limits.admit(`w${i}`, null);
    expect(limits.trackedWallets()).toBe(1000);
    now = 61_000;
    limits.admit('fresh', null);
    expect(limits.trackedWallets()).toBe(1);
  });

  it('refuses a native value exactly above the cap of its chain family, and not counting it', () => {
    const limits = createSignerLimits({ perWalletPerMinute: 2, nativeValueCaps: { EVM: 10n ** 18n } });
    limits.admit('w', { chain: 'EVM', value: 10n ** 18n });
    let refused: unknown;
    try {
      limits.admit('w', { chain: 'EVM', value: 10n ** 18n + 1n });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'SIGNER_LIMIT_EXCEEDED', status: 403, details: { limit: 'nativeValueCap', walletId: 'w', chain: 'EVM', cap: '1000000000000000000', value: '1000000000000000001' } });
    // No cap for SOLANA: any value; and the refused EVM request did not use up the rate.
    limits.admit('w', { chain: 'SOLANA', value: 10n ** 30n });
    expect(() => limits.admit('w', null)).toThrow(/per minute/);
  });

  it('refuses a nonsensical rate', () => {
    expect(() => createSignerLimits({ perWalletPerMinute: 0, nativeValueCaps: {} })).toThrow(/positive integer/);
  });
});
