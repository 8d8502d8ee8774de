import { describe, expect, it } from 'vitest';
import { budgetUsedPercent, changedBy, changedLimits, ethPreview, formatEth, sponsorshipState } from './sponsorship.ts';

describe('sponsorship page helpers', () => {
  it('formats wei in ETH without rounding, and previews only whole wei', () => {
    expect(formatEth('1000000000000000')).toBe('0.001 ETH');
    expect(formatEth('50000000000000000')).toBe('0.05 ETH');
    expect(formatEth('1')).toBe('0.000000000000000001 ETH');
    expect(formatEth('0')).toBe('0 ETH');
    expect(formatEth('115792089237316195423570985008687907853269984665640564039457584007913129639935')).toBe(
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935 ETH',
    );
    expect(ethPreview(' 2000000000000000 ')).toBe('= 0.002 ETH');
    expect(ethPreview('0.002')).toBeNull();
    expect(ethPreview('-1')).toBeNull();
    expect(ethPreview('')).toBeNull();
  });

  it('names the state, paused only while enabled', () => {
    expect(sponsorshipState({ enabled: false, paused: false })).toBe('disabled');
    expect(sponsorshipState({ enabled: false, paused: true })).toBe('disabled');
    expect(sponsorshipState({ enabled: true, paused: false })).toBe('enabled');
    expect(sponsorshipState({ enabled: true, paused: true })).toBe('paused');
  });

  it('says who changed the settings: the email, the CLI, or the actor', () => {
    expect(changedBy({ updatedBy: { type: 'staff', id: 'a1b2c3d4-0000' }, updatedByEmail: 'owner@example.com' })).toBe('owner@example.com');
    expect(changedBy({ updatedBy: { type: 'staff', id: 'a1b2c3d4-0000' }, updatedByEmail: null })).toBe('staff a1b2c3d4…');
    expect(changedBy({ updatedBy: { type: 'operator', id: null }, updatedByEmail: null })).toBe('operator (CLI)');
    expect(changedBy({ updatedBy: null, updatedByEmail: null })).toBe('—');
  });

  it('shows the budget use in whole percent, capped at 100', () => {
    expect(budgetUsedPercent('0', '50000000000000000')).toBe(0);
    expect(budgetUsedPercent('30000000000000000', '100000000000000000')).toBe(30);
    expect(budgetUsedPercent('99', '100')).toBe(99);
    expect(budgetUsedPercent('300', '100')).toBe(100);
  });

  it('sends only the amounts that changed, trimmed', () => {
    const stored = { gasCapWei: '1000', dailyBudgetWei: '5000' };
    expect(changedLimits({ gasCapWei: ' 1000 ', dailyBudgetWei: '5000' }, stored)).toEqual({});
    expect(changedLimits({ gasCapWei: '2000', dailyBudgetWei: '5000' }, stored)).toEqual({ gasCapWei: '2000' });
    expect(changedLimits({ gasCapWei: '1000', dailyBudgetWei: ' 0.5 ' }, stored)).toEqual({ dailyBudgetWei: '0.5' });
  });
});
