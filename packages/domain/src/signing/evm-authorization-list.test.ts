import { parseTransaction, recoverAddress, recoverTransactionAddress, type Hex } from 'viem';
import { hashAuthorization } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { evmSigner } from './evm.ts';
import { expectInvalidRequest, keyMaterial, signWith } from './testing.ts';

const DELEGATE = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

describe('EVM type 4 (EIP-7702) transactions', () => {
  it('signs a self-call carrying the signed authorization, as viem reads and recovers it', async () => {
    const key = keyMaterial('EVM');
    const auth = (await signWith(evmSigner.authorization, key, { authorization: { address: DELEGATE, chainId: 84532, nonce: 4 } })).response as Record<string, unknown>;
    const transaction = { to: key.address, value: '0', data: '0x34fcd5be', chainId: 84532, type: 4, nonce: 3, gasLimit: '90000', maxFeePerGas: '2000', maxPriorityFeePerGas: '1000' };
    const authorizationList = [{ address: auth.address, chainId: 84532, nonce: 4, r: auth.r, s: auth.s, yParity: auth.yParity }];
    const signed = (await signWith(evmSigner.transaction, key, { transaction: { ...transaction, authorizationList } })).response.signedTransaction as Hex;
    const parsed = parseTransaction(signed);
    expect(parsed).toMatchObject({ type: 'eip7702', nonce: 3, chainId: 84532 });
    expect(parsed.authorizationList).toEqual([expect.objectContaining({ address: DELEGATE.toLowerCase(), chainId: 84532, nonce: 4, r: auth.r, s: auth.s, yParity: auth.yParity })]);
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(key.address);
    const authority = await recoverAddress({ hash: hashAuthorization({ contractAddress: DELEGATE, chainId: 84532, nonce: 4 }), signature: { r: auth.r as Hex, s: auth.s as Hex, yParity: auth.yParity as number } });
    expect(authority).toBe(key.address);
  });

  it('requires the list for type 4 and refuses it on other types', async () => {
    const key = keyMaterial('EVM');
    const base = { to: key.address, value: '0', chainId: 84532, nonce: 0, gasLimit: '21000', maxFeePerGas: '2', maxPriorityFeePerGas: '1' };
    await expectInvalidRequest(() => signWith(evmSigner.transaction, key, { transaction: { ...base, type: 4 } }), /authorizationList: required for type 4/);
    const list = [{ address: DELEGATE, chainId: 84532, nonce: 1, r: '0x01', s: '0x02', yParity: 0 }];
    await expectInvalidRequest(() => signWith(evmSigner.transaction, key, { transaction: { ...base, type: 2, authorizationList: list } }), /authorizationList: only for type 4/);
  });
});
