import { createHash } from 'node:crypto';
import {
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  toHex,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { evmSigner } from './evm.ts';
import { expectInvalidRequest as expectInvalid, keyMaterial, signWith as run } from './testing.ts';

const evmKey = () => keyMaterial('EVM');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const bytesOf = (hex: Hex) => Buffer.from(hex.slice(2), 'hex');

describe('evm sign-transaction', () => {
  const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

  it('type 2 (EIP-1559): recovers to the wallet and parses back to the input fields', async () => {
    const key = evmKey();
    const transaction = {
      to,
      value: '1000000000000000000',
      data: '0xa9059cbb0000000000000000000000000000000000000000000000000000000000000001',
      chainId: 8453,
      type: 2,
      nonce: 7,
      gasLimit: '21000',
      maxFeePerGas: '30000000000',
      maxPriorityFeePerGas: '1500000000',
    };
    const { response, digest, chainId } = await run(evmSigner.transaction, key, { transaction });
    const serializedTransaction = response.signedTransaction as Hex;
    expect(serializedTransaction).toMatch(/^0x02[0-9a-f]+$/);
    expect(await recoverTransactionAddress({ serializedTransaction: serializedTransaction as `0x02${string}` })).toBe(
      key.address,
    );
    const parsed = parseTransaction(serializedTransaction);
    expect(parsed.type).toBe('eip1559');
    expect(parsed.chainId).toBe(8453);
    expect(parsed.nonce).toBe(7);
    expect(parsed.to?.toLowerCase()).toBe(to.toLowerCase());
    expect(parsed.value).toBe(10n ** 18n);
    expect(parsed.data).toBe(transaction.data);
    expect(parsed.gas).toBe(21000n);
    expect(parsed.maxFeePerGas).toBe(30_000_000_000n);
    expect(parsed.maxPriorityFeePerGas).toBe(1_500_000_000n);
    expect([0, 1]).toContain(parsed.yParity);
    expect(chainId).toBe('8453');
    // The audit digest names the EIP-2718 signing payload (the unsigned serialization).
    const { r, s, v, yParity, ...unsignedFields } = parsed;
    void r, s, v, yParity;
    expect(digest).toBe(sha256(bytesOf(serializeTransaction(unsignedFields))));
  });

  it('equals viem signTransaction byte for byte (type 2 and type 0)', async () => {
    const key = evmKey();
    const account = privateKeyToAccount(toHex(key.secret));
    const base = { to, value: '5', chainId: 1, nonce: 0, gasLimit: '50000' };
    const t2 = await run(evmSigner.transaction, key, {
      transaction: { ...base, maxFeePerGas: '100', maxPriorityFeePerGas: '100' },
    });
    expect(t2.response.signedTransaction).toBe(
      await account.signTransaction({
        type: 'eip1559',
        to,
        value: 5n,
        chainId: 1,
        nonce: 0,
        gas: 50000n,
        maxFeePerGas: 100n,
        maxPriorityFeePerGas: 100n,
      }),
    );
    const t0 = await run(evmSigner.transaction, key, { transaction: { ...base, type: 0, gasPrice: '7' } });
    expect(t0.response.signedTransaction).toBe(
      await account.signTransaction({ type: 'legacy', to, value: 5n, chainId: 1, nonce: 0, gas: 50000n, gasPrice: 7n }),
    );
  });

  it('type 0 (legacy, EIP-155): recovers to the wallet and parses back to the input fields', async () => {
    const key = evmKey();
    const transaction = {
      to: to.toLowerCase(),
      value: '0',
      chainId: 11155111,
      type: 0,
      nonce: 0,
      gasLimit: '100000',
      gasPrice: '2000000000',
      data: '0x',
    };
    const { response, chainId } = await run(evmSigner.transaction, key, { transaction });
    const serializedTransaction = response.signedTransaction as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: serializedTransaction as never })).toBe(
      key.address,
    );
    const parsed = parseTransaction(serializedTransaction);
    expect(parsed.type).toBe('legacy');
    expect(parsed.chainId).toBe(11155111);
    expect(parsed.nonce).toBe(0);
    expect(parsed.to).toBe(transaction.to);
    expect(parsed.value ?? 0n).toBe(0n);
    expect(parsed.gas).toBe(100000n);
    expect(parsed.gasPrice).toBe(2_000_000_000n);
    expect([11155111n * 2n + 35n, 11155111n * 2n + 36n]).toContain(parsed.v); // EIP-155 replay protection
    expect(chainId).toBe('11155111');
  });

  it('defaults type to 2 and value to "0", and accepts broadcast (signing only)', async () => {
    const key = evmKey();
    const transaction = { to, chainId: 1, nonce: 3, gasLimit: '21000', maxFeePerGas: '10', maxPriorityFeePerGas: '1' };
    const a = await run(evmSigner.transaction, key, { transaction, broadcast: true });
    const b = await run(evmSigner.transaction, key, { transaction: { ...transaction, type: 2, value: '0' } });
    expect(a.response).toEqual(b.response);
    expect(Object.keys(a.response)).toEqual(['signedTransaction']);
    const parsed = parseTransaction(a.response.signedTransaction as Hex);
    expect(parsed.type).toBe('eip1559');
    expect(parsed.value ?? 0n).toBe(0n);
    expect(await recoverTransactionAddress({ serializedTransaction: a.response.signedTransaction as never })).toBe(
      key.address,
    );
  });

  it('handles the largest quantities (2^256 - 1 value)', async () => {
    const key = evmKey();
    const max = ((1n << 256n) - 1n).toString();
    const { response } = await run(evmSigner.transaction, key, {
      transaction: { to, value: max, chainId: 1, nonce: 0, gasLimit: '21000', maxFeePerGas: '1', maxPriorityFeePerGas: '0' },
    });
    expect(parseTransaction(response.signedTransaction as Hex).value).toBe(BigInt(max));
  });

  describe('rejects bad transactions with 400', () => {
    const key = evmKey();
    const type2 = { to, chainId: 1, nonce: 0, gasLimit: '21000', maxFeePerGas: '10', maxPriorityFeePerGas: '1' };
    const type0 = { to, chainId: 1, type: 0, nonce: 0, gasLimit: '21000', gasPrice: '10' };
    const cases: [string, unknown, RegExp][] = [
      ['missing maxFeePerGas on type 2', { transaction: { ...type2, maxFeePerGas: undefined } }, /maxFeePerGas.*required for type 2/],
      ['missing maxPriorityFeePerGas', { transaction: { ...type2, maxPriorityFeePerGas: undefined } }, /maxPriorityFeePerGas/],
      ['gasPrice on type 2', { transaction: { ...type2, gasPrice: '10' } }, /gasPrice: not allowed for type 2/],
      ['missing gasPrice on type 0', { transaction: { ...type0, gasPrice: undefined } }, /gasPrice: required for type 0/],
      ['maxFeePerGas on type 0', { transaction: { ...type0, maxFeePerGas: '10' } }, /maxFeePerGas: not allowed for type 0/],
      ['tip above fee cap', { transaction: { ...type2, maxPriorityFeePerGas: '11' } }, /must not exceed maxFeePerGas/],
      ['type 1', { transaction: { ...type2, type: 1 } }, /type/],
      ['type as string', { transaction: { ...type2, type: '2' } }, /type/],
      ['unknown transaction field', { transaction: { ...type2, accessList: [] } }, /accessList/],
      ['unknown top-level field', { transaction: type2, from: to }, /from/],
      ['missing to', { transaction: { ...type2, to: undefined } }, /to/],
      ['bad checksum', { transaction: { ...type2, to: to.replace('C8', 'c8') } }, /checksum/],
      ['short address', { transaction: { ...type2, to: to.slice(0, 40) } }, /address/],
      ['numeric value', { transaction: { ...type2, value: 1 } }, /value: expected a non-negative integer in base units \(wei .* as a decimal string, got 1 /],
      ['leading zero', { transaction: { ...type2, value: '01' } }, /value: expected .* in base units \(wei .*, got \"01\"/],
      ['negative', { transaction: { ...type2, gasLimit: '-1' } }, /gasLimit/],
      ['hex quantity', { transaction: { ...type2, maxFeePerGas: '0x10' } }, /maxFeePerGas/],
      ['decimal point', { transaction: { ...type2, value: '1.5' } }, /value: expected .* in base units \(wei .*, got \"1\.5\"/],
      ['above 2^256 - 1', { transaction: { ...type2, value: (1n << 256n).toString() } }, /value: expected at most 2\^256 - 1 in wei, got "1157/],
      ['79 digits', { transaction: { ...type2, value: '1'.repeat(79) } }, /value/],
      ['chainId 0', { transaction: { ...type2, chainId: 0 } }, /chainId/],
      ['chainId as string', { transaction: { ...type2, chainId: '1' } }, /chainId/],
      ['fractional nonce', { transaction: { ...type2, nonce: 1.5 } }, /nonce/],
      ['negative nonce', { transaction: { ...type2, nonce: -1 } }, /nonce/],
      ['odd-length data', { transaction: { ...type2, data: '0xabc' } }, /data/],
      ['data without 0x', { transaction: { ...type2, data: 'abcd' } }, /data/],
      ['broadcast not boolean', { transaction: type2, broadcast: 'yes' }, /broadcast/],
      ['no transaction', {}, /transaction/],
    ];
    for (const [name, body, pattern] of cases) {
      it(name, async () => {
        await expectInvalid(() => run(evmSigner.transaction, key, body), pattern);
      });
    }
  });
});
