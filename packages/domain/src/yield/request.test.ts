import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { buildYieldMarkets, type LocalYieldContracts } from './markets.ts';
import { assertSameYieldRequest, normalizeYieldAmount, parseYieldRequest, yieldIdempotencyKey, yieldRequestIdentity } from './request.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const local: LocalYieldContracts = {
  chainId: 84532,
  pool: { poolAddress: addr(0x101), aToken: addr(0x102), usdc: addr(0x100) },
  vault: { vault: addr(0x103), bundler: addr(0x104), usdc: addr(0x100) },
};
const markets = buildYieldMarkets({ appEnv: 'local', configured: [], directory: { list: () => [] }, local });
const WALLET = '6f1c1d2e-0000-4000-8000-000000000001';

/** The 400 body's first detail, or the thrown value when it is not a 400. */
function refusal(run: () => unknown): { status: number; path?: string; message?: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const detail = (error.extra.details as { path: string; message: string }[] | undefined)?.[0];
    return { status: error.status, ...detail };
  }
  throw new Error('expected a refusal');
}

describe('yield amounts', () => {
  it('normalize to one canonical decimal string, so "10", "10.0" and "10.000000" are one request', () => {
    const cases: [string, string, bigint][] = [
      ['10', '10.0', 10_000_000n],
      ['10.0', '10.0', 10_000_000n],
      ['10.000000', '10.0', 10_000_000n],
      ['10.50', '10.5', 10_500_000n],
      ['0.25', '0.25', 250_000n],
      ['0.000001', '0.000001', 1n],
      ['123456789012345678901234567890', '123456789012345678901234567890.0', 123456789012345678901234567890_000000n],
    ];
    for (const [raw, amount, baseUnits] of cases) expect([raw, normalizeYieldAmount(raw, 'deposit')]).toEqual([raw, { amount, baseUnits }]);
    expect(normalizeYieldAmount('all', 'withdraw')).toEqual({ amount: 'all', baseUnits: null });
  });

  it('refuse zero, more than six decimals, signs, exponents, spaces, over 85 characters, and "all" on deposits', () => {
    for (const raw of ['0', '0.000000', '1.0000001', '-1', '+1', '1e6', ' 1', '1 ', '.5', '5.', '1,5', '0x10', '', '007.25', '01', '00.5', '01x', '1'.repeat(86)]) {
      expect([raw, refusal(() => normalizeYieldAmount(raw, 'withdraw'))]).toEqual([raw, expect.objectContaining({ status: 400, path: 'amount' })]);
    }
    expect(normalizeYieldAmount('1'.repeat(85), 'deposit').amount).toBe(`${'1'.repeat(85)}.0`);
    expect(refusal(() => normalizeYieldAmount('all', 'deposit'))).toMatchObject({ status: 400, path: 'amount', message: expect.stringContaining('only for withdrawals') });
  });

  it('say that they expect whole tokens and quote what they got', () => {
    expect(refusal(() => normalizeYieldAmount('1e6', 'deposit')).message).toBe('expected a positive decimal amount in whole tokens as a string (e.g. "1.5" for 1.5 USDC), not base units, got "1e6"');
    expect(refusal(() => normalizeYieldAmount('0', 'withdraw')).message).toBe('expected a positive decimal amount in whole tokens as a string (e.g. "1.5" for 1.5 USDC), not base units, got "0"; or "all"');
    expect(refusal(() => normalizeYieldAmount('1.1234567', 'deposit')).message).toBe('expected at most 6 decimals in whole tokens (USDC has 6), got "1.1234567"');
    expect(refusal(() => parseYieldRequest('deposit', { chainId: 84532, amount: 1500000 }, markets)).message).toMatch(/in whole tokens .*, got 1500000$/);
    expect(refusal(() => parseYieldRequest('deposit', { chainId: 84532 }, markets)).message).toMatch(/^required: a positive decimal amount in whole tokens/);
  });
});

describe('the yield Idempotency-Key', () => {
  it('is required, 1 to 256 printable ASCII characters without spaces', () => {
    expect(yieldIdempotencyKey('dep-001')).toBe('dep-001');
    expect(yieldIdempotencyKey('~'.repeat(256))).toBe('~'.repeat(256));
    for (const bad of [undefined, '', 'a b', 'é', 'tab\there', 'x'.repeat(257), ['k1', 'k2']]) {
      expect([bad, refusal(() => yieldIdempotencyKey(bad))]).toEqual([bad, expect.objectContaining({ status: 400, path: 'Idempotency-Key' })]);
    }
  });
});

describe('yield request bodies', () => {
  it('resolve the market by id, by chain (the pool provider), or both when they agree; chainId may be a string', () => {
    expect(parseYieldRequest('deposit', { marketId: 'vaultprov-v2-base-sepolia-demo-usdc', amount: '10' }, markets)).toMatchObject({ market: { source: 'vaultprov-v2' }, amount: '10.0' });
    expect(parseYieldRequest('deposit', { chainId: 84532, amount: '1.5' }, markets)).toMatchObject({ market: { id: 'poolprov-v3:84532:usdc' }, baseUnits: 1_500_000n });
    expect(parseYieldRequest('withdraw', { chainId: '84532', marketId: 'poolprov-v3:84532:usdc', amount: 'all' }, markets)).toMatchObject({ amount: 'all', baseUnits: null });
  });

  it('refuse before anything is created: extra fields, neither selector, unknown market, chain not in the enumeration or not matching, missing amount', () => {
    const bad: [unknown, string][] = [
      [{ chainId: 84532, amount: '1', slippage: '0.1' }, 'slippage'],
      [{ amount: '1' }, 'marketId'],
      [{ marketId: 'poolprov-v3:1:usdc', amount: '1' }, 'marketId'],
      [{ chainId: 137, amount: '1' }, 'chainId'],
      [{ chainId: '8453.0', amount: '1' }, 'chainId'],
      [{ chainId: '084532', amount: '1' }, 'chainId'],
      [{ chainId: '', amount: '1' }, 'chainId'],
      [{ marketId: 'poolprov-v3:84532:usdc', chainId: 8453, amount: '1' }, 'chainId'],
      [{ chainId: 84532 }, 'amount'],
      [{ chainId: 84532, amount: 10 }, 'amount'],
    ];
    for (const [body, field] of bad) {
      const refused = refusal(() => parseYieldRequest('deposit', body, markets));
      // Unknown keys are reported at the body's root, naming the key.
      expect([body, refused.status, refused.path === field || (refused.path === '' && refused.message!.includes(field))]).toEqual([body, 400, true]);
    }
  });
});

describe('one key, one request', () => {
  const identity = (body: Record<string, unknown>, action: 'deposit' | 'withdraw' = 'deposit', walletId = WALLET) =>
    yieldRequestIdentity(walletId, action, parseYieldRequest(action, body, markets));

  it('treats equal normalized requests as the same (the marketId and chainId spellings of one market too)', () => {
    expect(() => assertSameYieldRequest(identity({ chainId: 84532, amount: '10' }), identity({ marketId: 'poolprov-v3:84532:usdc', amount: '10.000000' }))).not.toThrow();
  });

  it('answers 409 naming every differing field: wallet, market, action, amount', () => {
    const first = identity({ chainId: 84532, amount: '10' });
    const conflictOf = (other: ReturnType<typeof identity>) => {
      try {
        assertSameYieldRequest(first, other);
      } catch (error) {
        return [(error as ApiError).status, (error as ApiError).code, ((error as ApiError).extra.details as { path: string }[]).map((d) => d.path)];
      }
      return null;
    };
    expect(conflictOf(identity({ chainId: 84532, amount: '10.01' }))).toEqual([409, 'CONFLICT', ['amount']]);
    expect(conflictOf(identity({ marketId: 'vaultprov-v2-base-sepolia-demo-usdc', amount: '10' }))).toEqual([409, 'CONFLICT', ['marketId']]);
    expect(conflictOf(identity({ chainId: 84532, amount: '10' }, 'withdraw'))).toEqual([409, 'CONFLICT', ['action']]);
    expect(conflictOf(identity({ chainId: 84532, amount: '11' }, 'deposit', '6f1c1d2e-0000-4000-8000-000000000002'))).toEqual([409, 'CONFLICT', ['walletId', 'amount']]);
  });
});
