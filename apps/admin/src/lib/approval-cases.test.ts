import { describe, expect, it } from 'vitest';
import { approvalCount, eligibilityLabel, isCancellable, requestSummary, statusTimes } from './approval-cases.ts';

const evm = { walletType: 'EVM', chainId: '84532', network: null };

describe('requestSummary', () => {
  it('reads a native transfer: short action, chain id, base units, recipient', () => {
    const request = { action: 'wallet.sign.sign-transaction', operation: 'transaction', chain: evm, transfer: { to: '0xdead', value: '2000', tokenAddress: null } };
    expect(requestSummary(request)).toEqual({ action: 'sign-transaction', chain: 'EVM 84532', amount: '2000', recipient: '0xdead' });
  });

  it('names the token of a token transfer, the network without a chain id, and nothing for a request without a transfer', () => {
    const token = { action: 'transfer', operation: 'transfer', chain: { walletType: 'SOLANA', chainId: null, network: 'devnet' }, transfer: { to: 'So1', value: '5', tokenAddress: 'Mint1' } };
    expect(requestSummary(token)).toEqual({ action: 'transfer', chain: 'SOLANA devnet', amount: '5 of token Mint1', recipient: 'So1' });
    const message = { action: 'wallet.sign.sign-message', operation: 'message', chain: { walletType: 'EVM', chainId: null, network: null }, transfer: null };
    expect(requestSummary(message)).toEqual({ action: 'sign-message', chain: 'EVM', amount: null, recipient: null });
  });
});

describe('statusTimes', () => {
  it('lists all seven status times in life-cycle order, null where the case never got', () => {
    const times = statusTimes({ createdAt: 'c', completedAt: 'd', consumedAt: null, rejectedAt: null, expiredAt: null, invalidatedAt: null, cancelledAt: 'x' });
    expect(times).toEqual([
      ['Created', 'c'],
      ['Completed', 'd'],
      ['Consumed', null],
      ['Rejected', null],
      ['Expired', null],
      ['Invalidated', null],
      ['Cancelled', 'x'],
    ]);
  });
});

describe('approvalCount and isCancellable', () => {
  it('counts given against required approvals, and lets only a pending case be cancelled', () => {
    expect(approvalCount({ requiredApprovals: 2, approvals: [{}] })).toBe('1 of 2 approvals');
    expect(approvalCount({ requiredApprovals: 1, approvals: [] })).toBe('0 of 1 approval');
    expect(isCancellable('pending')).toBe(true);
    for (const status of ['completed', 'consumed', 'rejected', 'expired', 'invalidated', 'cancelled']) expect(isCancellable(status)).toBe(false);
  });
});

describe('eligibilityLabel', () => {
  it('names the roles, then each attribute with its accepted values', () => {
    expect(eligibilityLabel({ roles: ['finance', 'treasury'], attributes: { region: ['eu', 'uk'] } })).toBe('finance or treasury; region eu/uk');
    expect(eligibilityLabel({ roles: [], attributes: { desk: ['fx'] } })).toBe('desk fx');
    expect(eligibilityLabel({ roles: ['finance'] })).toBe('finance');
    expect(eligibilityLabel({ roles: [], attributes: {} })).toBe('—');
  });
});
