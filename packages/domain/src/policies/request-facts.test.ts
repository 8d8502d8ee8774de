import { describe, expect, it } from 'vitest';
import { expectInvalidRequest } from '../signing/testing.ts';
import { walletTypes } from '../wallets/schemas.ts';
import { actionOf, requestFactsOf } from './request-facts.ts';
import { addTotals, assertNetworkNotContradicted, decoded } from './request-facts-common.ts';
import { signingContext } from './request-facts-testing.ts';

describe('actionOf', () => {
  it('raw is raw_signature everywhere; sign-message is sign_message on EVM only', () => {
    for (const type of walletTypes) {
      expect(actionOf(type, 'raw', 'wallet.sign.sign-raw')).toBe('raw_signature');
      expect(actionOf(type, 'message', 'wallet.sign.sign-message')).toBe(type === 'EVM' ? 'sign_message' : 'raw_signature');
    }
  });

  it('typed data, authorizations, and transactions by audit action', () => {
    expect(actionOf('EVM', 'typedData', 'wallet.sign.sign-typed-data')).toBe('sign_typed_data');
    expect(actionOf('EVM', 'authorization', 'wallet.sign.sign-authorization')).toBe('sign_authorization');
    expect(actionOf('EVM', 'transaction', 'wallet.sign.transfer')).toBe('transfer');
    expect(actionOf('SOLANA', 'transaction', 'wallet.sign.transfer')).toBe('transfer');
    expect(actionOf('EVM', 'transaction', 'wallet.sign.cancel')).toBe('cancel_transaction');
    expect(actionOf('EVM', 'transaction', 'wallet.sign.sign-transaction')).toBe('sign_transaction');
    expect(actionOf('EVM', 'transaction', 'toString')).toBe('sign_transaction');
  });
});

describe('request totals', () => {
  it('sum decoded amounts per asset; a token total only for exactly one known token asset', () => {
    const request = decoded();
    request.legs.push({ to: 'a', asset: 'native', amount: 2n }, { to: 'b', asset: 'native', amount: null }, { to: 'c', asset: 'T', amount: 3n }, { to: 'd', asset: 'T', amount: 4n });
    addTotals(request, true);
    expect(request.facts).toEqual({ 'request.value.baseUnits': '2', 'request.token.value.baseUnits': '7' });

    const mixed = decoded();
    mixed.legs.push({ to: 'c', asset: 'T', amount: 3n }, { to: null, asset: null, amount: null });
    addTotals(mixed, false);
    expect(mixed.facts).toEqual({});
  });

  it('keep a total a decoder already set (EVM approve amounts)', () => {
    const request = decoded();
    request.facts['request.token.value.baseUnits'] = '9';
    addTotals(request, true);
    expect(request.facts).toEqual({ 'request.token.value.baseUnits': '9', 'request.value.baseUnits': '0' });
  });
});

describe('assertNetworkNotContradicted', () => {
  it('is 400 INVALID_REQUEST only when both sides are known and differ', async () => {
    expect(() => assertNetworkNotContradicted(null, 'sui:mainnet')).not.toThrow();
    expect(() => assertNetworkNotContradicted('solana:devnet', null)).not.toThrow();
    expect(() => assertNetworkNotContradicted('sui:mainnet', 'sui:mainnet')).not.toThrow();
    await expectInvalidRequest(() => assertNetworkNotContradicted('sui:devnet', 'sui:mainnet'), /contradicts/);
  });
});

describe('requestFactsOf', () => {
  it('carries the wallet, the API key and the action of the context', () => {
    const context = signingContext('EVM', '0x1111111111111111111111111111111111111111', 'message', { message: 'hi' });
    expect(requestFactsOf(context)).toEqual({
      walletType: 'EVM',
      walletId: context.wallet.id,
      apiKeyId: context.caller.apiKeyId,
      action: 'sign_message',
      network: null,
      facts: { 'wallet.id': context.wallet.id },
      legs: [],
      undecoded: null,
    });
  });
});
