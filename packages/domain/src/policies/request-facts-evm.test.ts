import { encodeFunctionData, erc20Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import { requestFactsOf } from './request-facts.ts';
import { signingContext } from './request-facts-testing.ts';

const WALLET = '0x1111111111111111111111111111111111111111';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const PAYEE = '0x2222222222222222222222222222222222222222';
const SPENDER = '0x3333333333333333333333333333333333333333';

function transaction(fields: { to: string; value?: string; data?: string; chainId?: number }, action?: string) {
  const body = {
    transaction: { chainId: 84532, nonce: 3, gasLimit: '100000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000', ...fields },
  };
  return requestFactsOf(signingContext('EVM', WALLET, 'transaction', body, { action }));
}

describe('EVM request facts', () => {
  it('a native sign-transaction: one native leg, chain id and value facts', () => {
    const facts = transaction({ to: PAYEE, value: '1000' });
    expect(facts).toMatchObject({ walletType: 'EVM', action: 'sign_transaction', network: '84532', undecoded: null });
    expect(facts.legs).toEqual([{ to: PAYEE.toLowerCase(), asset: 'native', amount: 1000n }]);
    expect(facts.facts).toMatchObject({ 'request.chainId': '84532', 'request.value.baseUnits': '1000', 'wallet.id': facts.walletId });
    expect(facts.facts['request.to']).toBeUndefined();
  });

  it('an ERC-20 transfer: a token leg to the calldata recipient, the contract lower-cased as asset', () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PAYEE, 5_000_000n] });
    const facts = transaction({ to: TOKEN, data }, 'wallet.sign.transfer');
    expect(facts.action).toBe('transfer');
    expect(facts.legs).toEqual([{ to: PAYEE.toLowerCase(), asset: TOKEN.toLowerCase(), amount: 5_000_000n }]);
    expect(facts.facts).toMatchObject({
      'request.value.baseUnits': '0',
      'request.token.value.baseUnits': '5000000',
      'request.function.selector': '0xa9059cbb',
    });
  });

  it('an approve: spender and token facts, no leg, request.to the token contract', () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, 10n ** 30n] });
    const facts = transaction({ to: TOKEN, data });
    expect(facts.legs).toEqual([]);
    expect(facts.facts).toMatchObject({
      'request.spender': SPENDER.toLowerCase(),
      'request.token.address': TOKEN.toLowerCase(),
      'request.token.value.baseUnits': (10n ** 30n).toString(),
      'request.to': TOKEN.toLowerCase(),
      'request.function.selector': '0x095ea7b3',
      'request.value.baseUnits': '0',
    });
  });

  it('transferFrom is undecoded: no leg, request.to is the contract, no token value', () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [WALLET, PAYEE, 7n] });
    const facts = transaction({ to: TOKEN, data });
    expect(facts.legs).toEqual([]);
    expect(facts.undecoded).toMatch(/transferFrom/);
    expect(facts.facts['request.to']).toBe(TOKEN.toLowerCase());
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
    expect(facts.facts['request.token.address']).toBeUndefined();
    expect(facts.facts['request.function.selector']).toBe('0x23b872dd');
  });

  it('a contract call with value: a native leg to the contract and the selector', () => {
    const facts = transaction({ to: SPENDER, value: '9', data: '0xdeadbeef0000' });
    expect(facts.legs).toEqual([{ to: SPENDER.toLowerCase(), asset: 'native', amount: 9n }]);
    expect(facts.facts['request.function.selector']).toBe('0xdeadbeef');
    expect(facts.undecoded).toMatch(/call 0xdeadbeef/);
  });

  it('a transfer call whose calldata is cut short is undecoded', () => {
    const facts = transaction({ to: TOKEN, data: '0xa9059cbb0000' });
    expect(facts.legs).toEqual([]);
    expect(facts.undecoded).toMatch(/does not decode/);
    expect(facts.facts['request.to']).toBe(TOKEN.toLowerCase());
  });

  it('a cancellation: cancel_transaction, no leg, value 0 to the wallet itself', () => {
    const facts = transaction({ to: WALLET, value: '0' }, 'wallet.sign.cancel');
    expect(facts.action).toBe('cancel_transaction');
    expect(facts.legs).toEqual([]);
    expect(facts.facts).toMatchObject({ 'request.chainId': '84532', 'request.to': WALLET, 'request.value.baseUnits': '0' });
  });

  it('messages and raw hashes: sign_message / raw_signature without network', () => {
    const message = requestFactsOf(signingContext('EVM', WALLET, 'message', { message: 'hello' }));
    expect(message).toMatchObject({ action: 'sign_message', network: null, legs: [], facts: { 'wallet.id': message.walletId } });
    const raw = requestFactsOf(signingContext('EVM', WALLET, 'raw', { data: `0x${'ab'.repeat(32)}` }));
    expect(raw).toMatchObject({ action: 'raw_signature', network: null, legs: [] });
    expect(Object.keys(raw.facts)).toEqual(['wallet.id']);
  });

  it('typed data: primary type and domain facts, network from the domain', () => {
    const body = {
      typedData: {
        domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: TOKEN },
        types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'value', type: 'uint256' }] },
        primaryType: 'Permit',
        message: { owner: WALLET, value: '1' },
      },
    };
    const facts = requestFactsOf(signingContext('EVM', WALLET, 'typedData', body));
    expect(facts).toMatchObject({ action: 'sign_typed_data', network: '8453', legs: [] });
    expect(facts.facts).toMatchObject({
      'request.chainId': '8453',
      'request.typedData.primaryType': 'Permit',
      'request.typedData.domain.name': 'USD Coin',
      'request.typedData.domain.version': '2',
      'request.typedData.domain.chainId': '8453',
      'request.typedData.domain.verifyingContract': TOKEN.toLowerCase(),
    });
    const chainless = requestFactsOf(signingContext('EVM', WALLET, 'typedData', { typedData: { ...body.typedData, domain: { name: 'x' } } }));
    expect(chainless.network).toBeNull();
    expect(chainless.facts['request.chainId']).toBeUndefined();
  });

  it('authorization: the delegate lower-cased; chain id 0 (any chain) names no network', () => {
    const facts = requestFactsOf(signingContext('EVM', WALLET, 'authorization', { authorization: { contractAddress: TOKEN, chainId: 1, nonce: 0 } }));
    expect(facts).toMatchObject({ action: 'sign_authorization', network: '1', facts: { 'request.authorization.address': TOKEN.toLowerCase() } });
    const anyChain = requestFactsOf(signingContext('EVM', WALLET, 'authorization', { authorization: { address: TOKEN, chainId: 0, nonce: 0 } }));
    expect(anyChain.network).toBeNull();
  });

  it('a legacy transaction decodes the same way', () => {
    const body = { transaction: { to: PAYEE, value: '5', chainId: 1, type: 0, nonce: 0, gasLimit: '21000', gasPrice: '1' } };
    const facts = requestFactsOf(signingContext('EVM', WALLET, 'transaction', body));
    expect(facts.legs).toEqual([{ to: PAYEE.toLowerCase(), asset: 'native', amount: 5n }]);
    expect(facts.network).toBe('1');
  });
});
