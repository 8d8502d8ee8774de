import { bcs } from '@mysten/sui/bcs';
import { Ed25519Keypair, Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { verifyPersonalMessageSignature, verifyTransactionSignature } from '@mysten/sui/verify';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../shared/zod.ts';
import { suiSigner } from './sui.ts';
import { expectInvalidRequest as expect400, frostTestKeyMaterial, signWith as sign, keyMaterial } from './testing.ts';
import type { SignOperation } from './types.ts';

const suiKey = (secret?: Uint8Array) => keyMaterial('SUI', secret);

const transactionOp = suiSigner.transaction as SignOperation;

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A TransactionData built offline with the SDK: split 1000 MIST off the gas coin and send it. */
async function buildTransaction(sender: string, recipient = `0x${'22'.repeat(32)}`): Promise<Uint8Array> {
  const tx = new Transaction();
  tx.setSender(sender);
  tx.setGasPrice(1000);
  tx.setGasBudget(10_000_000);
  tx.setGasPayment([{ objectId: `0x${'11'.repeat(32)}`, version: '7', digest: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' }]);
  const [coin] = tx.splitCoins(tx.gas, [1000]);
  tx.transferObjects([coin!], recipient);
  return tx.build();
}

describe('suiSigner', () => {
  it('has message, raw and transaction operations, no typed data or authorization', () => {
    expect(suiSigner.transaction).toBeDefined();
    expect(suiSigner.typedData).toBeUndefined();
    expect(suiSigner.authorization).toBeUndefined();
  });

  it('sign-message: PersonalMessage intent signature, verified by verifyPersonalMessageSignature and byte-identical to the SDK', async () => {
    const messages = ['Hello Sui ✓', 'x', 'a'.repeat(127), 'b'.repeat(128), 'c'.repeat(20_000)]; // 1-, 2- and 3-byte ULEB128 lengths
    for (let i = 0; i < 25; i++) {
      const key = suiKey();
      const message = messages[i % messages.length]!;
      const bytes = new TextEncoder().encode(message);
      const { response, digest, chainId } = await sign(suiSigner.message, key, { message });
      expect(Object.keys(response)).toEqual(['signature']);
      const signature = response.signature as string;
      const publicKey = await verifyPersonalMessageSignature(bytes, signature);
      expect(publicKey.toSuiAddress()).toBe(key.address);
      const sdk = await Ed25519Keypair.fromSecretKey(key.secret).signPersonalMessage(bytes);
      expect(signature).toBe(sdk.signature);
      expect(digest).toBe(sha256Hex(bytes));
      expect(chainId).toBeNull();
      await expect(verifyPersonalMessageSignature(new TextEncoder().encode(`${message}!`), signature)).rejects.toThrow();
    }
  });

  it('the public-key cache: repeated signing stays identical to the SDK, a wrong address cannot poison it', async () => {
    const a = suiKey();
    const b = suiKey();
    const bytes = new TextEncoder().encode('cached');
    const expected = (await Ed25519Keypair.fromSecretKey(a.secret).signPersonalMessage(bytes)).signature;
    for (let i = 0; i < 3; i++) expect((await sign(suiSigner.message, a, { message: 'cached' })).response.signature).toBe(expected);
    // a's secret presented under b's address: the signature still names a's key (the one that signed) ...
    const mixed = await sign(suiSigner.message, { ...a, address: b.address }, { message: 'cached' });
    expect((await verifyPersonalMessageSignature(bytes, mixed.response.signature as string)).toSuiAddress()).toBe(a.address);
    // ... and b's own signatures are unaffected.
    for (let i = 0; i < 2; i++) {
      const own = await sign(suiSigner.message, b, { message: 'cached' });
      expect((await verifyPersonalMessageSignature(bytes, own.response.signature as string)).toSuiAddress()).toBe(b.address);
    }
  });

  it('vector: fixed seed, identical to Ed25519Keypair.signPersonalMessage and signTransaction', async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const key = suiKey(seed);
    expect(key.address).toBe('0x7573c697fa68450f04fa0dee2d39dcdc8a5ccf5db547f3e47638a6f8eeeec110');
    const message = await sign(suiSigner.message, key, { message: 'Hello, Sui vector' });
    // Produced by @mysten/sui 1.45: Ed25519Keypair.fromSecretKey(seed).signPersonalMessage(bytes).
    expect(message.response.signature).toBe(
      'ANCqmXv/q0SEsXG1MdOKHN/rH5gDpmCHr0Aj8dk5ogHD/n2YjdXgOXlfPWuBtCQHpDhKKo6xO8/tPJ0lk3BtHQZ5tVYuj+ZU+UB4sRLoqYunkB+FOuaVvtfg45ELrQSWZA==',
    );
    const bytes = await buildTransaction(key.address);
    const transaction = Buffer.from(bytes).toString('base64');
    // Produced by @mysten/sui 1.45 with the same builder calls.
    expect(transaction).toBe(
      'AAACAAjoAwAAAAAAAAAgIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiICAgABAQAAAQEDAAAAAAEBAHVzxpf6aEUPBPoN7i053NyKXM9dtUfz5HY4pvju7sEQARERERERERERERERERERERERERERERERERERERERERERBwAAAAAAAAAgAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQF1c8aX+mhFDwT6De4tOdzcilzPXbVH8+R2OKb47u7BEOgDAAAAAAAAgJaYAAAAAAAA',
    );
    const signed = await sign(transactionOp, key, { transaction });
    // Produced by @mysten/sui 1.45: Ed25519Keypair.fromSecretKey(seed).signTransaction(bytes).
    expect(signed.response.signature).toBe(
      'AMH8ioMpJzDmgCMMN+m5K8asLsGrhEcKMJfPwLXMGJl/WDb/t8hl01p4B1u5zMn4BjmnqawLpcDGSZ8Z3hJXGA95tVYuj+ZU+UB4sRLoqYunkB+FOuaVvtfg45ELrQSWZA==',
    );
  });

  it('sign-raw: Ed25519 over the exact bytes, hex, verified by Ed25519PublicKey.verify', async () => {
    const key = suiKey();
    const bytes = Buffer.from('deadbeef0001', 'hex');
    const { response, digest, chainId } = await sign(suiSigner.raw, key, { data: bytes.toString('hex'), walletType: 'SUI' });
    expect(response.signature).toMatch(/^[0-9a-f]{128}$/);
    const publicKey = new Ed25519PublicKey(key.publicKey);
    expect(publicKey.toSuiAddress()).toBe(key.address);
    expect(await publicKey.verify(bytes, Buffer.from(response.signature as string, 'hex'))).toBe(true);
    expect(await publicKey.verify(Buffer.from('deadbeef0002', 'hex'), Buffer.from(response.signature as string, 'hex'))).toBe(false);
    expect(digest).toBe(sha256Hex(bytes));
    expect(chainId).toBeNull();
  });

  it('sign-transaction with a FROST key: randomized, each verified by verifyTransactionSignature', async () => {
    const key = frostTestKeyMaterial('SUI');
    const bytes = await buildTransaction(key.address);
    const transaction = Buffer.from(bytes).toString('base64');
    const [a, b] = [await sign(transactionOp, key, { transaction }), await sign(transactionOp, key, { transaction })];
    expect(a.response.signature).not.toBe(b.response.signature);
    for (const r of [a, b]) expect((await verifyTransactionSignature(bytes, r.response.signature as string)).toSuiAddress()).toBe(key.address);
  });

  it('sign-transaction: TransactionData built with the SDK, verified by verifyTransactionSignature', async () => {
    for (let i = 0; i < 5; i++) {
      const key = suiKey();
      const bytes = await buildTransaction(key.address);
      const transaction = Buffer.from(bytes).toString('base64');
      const { response, digest, chainId } = await sign(transactionOp, key, { transaction, networkPassphrase: 'ignored', broadcast: false });
      expect(Object.keys(response).sort()).toEqual(['signature', 'transaction']);
      expect(response.transaction).toBe(transaction);
      const publicKey = await verifyTransactionSignature(bytes, response.signature as string);
      expect(publicKey.toSuiAddress()).toBe(key.address);
      expect(response.signature).toBe((await Ed25519Keypair.fromSecretKey(key.secret).signTransaction(bytes)).signature);
      // Not valid for another transaction, nor as a personal message over the same bytes.
      await expect(verifyTransactionSignature(await buildTransaction(key.address, `0x${'33'.repeat(32)}`), response.signature as string)).rejects.toThrow();
      await expect(verifyPersonalMessageSignature(bytes, response.signature as string)).rejects.toThrow();
      expect(digest).toBe(sha256Hex(bytes));
      expect(chainId).toBeNull();
    }
  });

  it('rejects bad input with 400 INVALID_REQUEST', async () => {
    const key = suiKey();
    const bytes = await buildTransaction(key.address);
    const transaction = Buffer.from(bytes).toString('base64');
    const body = transactionOp.body;
    // Schema level.
    await expect400(() => parseInput(suiSigner.raw.body, { data: '0xabc' }));
    await expect400(() => parseInput(suiSigner.raw.body, { data: 'gg' }));
    await expect400(() => parseInput(suiSigner.raw.body, { data: 'abcd', walletType: 'SUI', more: 1 }));
    await expect400(() => parseInput(suiSigner.message.body, { message: 42 }));
    await expect400(() => parseInput(body, {}));
    await expect400(() => parseInput(body, { transaction: '' }));
    await expect400(() => parseInput(body, { transaction: 'abc' }));
    await expect400(() => parseInput(body, { transaction, sender: key.address }));
    await expect400(() => parseInput(body, { transaction, networkPassphrase: 7 }));
    await expect400(() => parseInput(body, { transaction, broadcast: true }), 'Sui transactions are signed only; broadcast is not supported');
    await expect400(() => transactionOp.sign(key, { transaction, broadcast: true }), 'Sui transactions are signed only; broadcast is not supported');
    // Decoding level: valid base64 that is not (exactly) one TransactionData.
    const garbage = [
      'AAAA',
      Buffer.from('definitely not bcs').toString('base64'),
      Buffer.from(bytes.subarray(0, bytes.length - 1)).toString('base64'),
      Buffer.concat([bytes, Buffer.from([0])]).toString('base64'),
      Buffer.from(bcs.vector(bcs.u8()).serialize([1, 2, 3]).toBytes()).toString('base64'),
    ];
    for (const transaction of garbage) {
      await expect400(() => sign(transactionOp, key, { transaction }), /not a base64 BCS-serialized Sui TransactionData/);
    }
  });
});
