import {
  Account,
  Asset,
  FeeBumpTransaction,
  Keypair,
  Networks,
  Operation,
  Transaction,
  TransactionBuilder,
  hash as stellarHash,
} from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../shared/zod.ts';
import { stellarSigner } from './stellar.ts';
import { expectInvalidRequest as expect400, signWith as sign, frostTestKeyMaterial, keyMaterial } from './testing.ts';
import type { SignOperation } from './types.ts';

const stellarKey = (secret?: Uint8Array) => keyMaterial('STELLAR', secret);

const transactionOp = stellarSigner.transaction as SignOperation;

const DESTINATION = Keypair.random().publicKey();

function paymentTransaction(source: string, networkPassphrase: string = Networks.TESTNET): Transaction {
  return new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase })
    .addOperation(Operation.payment({ destination: DESTINATION, asset: Asset.native(), amount: '12.5' }))
    .setTimeout(300)
    .build();
}

describe('stellarSigner', () => {
  it('has message, raw and transaction operations, no typed data or authorization', () => {
    expect(stellarSigner.transaction).toBeDefined();
    expect(stellarSigner.typedData).toBeUndefined();
    expect(stellarSigner.authorization).toBeUndefined();
  });

  it('sign-message: Ed25519 over the raw UTF-8 bytes (no SEP-53), verified by Keypair.verify', async () => {
    for (let i = 0; i < 30; i++) {
      const key = stellarKey();
      const message = `Hello Stellar #${i} ✓`;
      const bytes = Buffer.from(message, 'utf8');
      const { response, digest, chainId } = await sign(stellarSigner.message, key, { message });
      expect(Object.keys(response)).toEqual(['signature']);
      expect(response.signature).toMatch(/^[0-9a-f]{128}$/);
      const signature = Buffer.from(response.signature as string, 'hex');
      const keypair = Keypair.fromPublicKey(key.address);
      expect(keypair.verify(bytes, signature)).toBe(true);
      // No SEP-53 envelope: the signature is not over sha256("Stellar Signed Message:\n" + message).
      expect(keypair.verify(stellarHash(Buffer.concat([Buffer.from('Stellar Signed Message:\n'), bytes])), signature)).toBe(false);
      expect(digest).toBe(stellarHash(bytes).toString('hex'));
      expect(chainId).toBeNull();
    }
  });

  it('sign-raw: Ed25519 over the exact bytes, verified by Keypair.verify', async () => {
    const key = stellarKey();
    const bytes = Buffer.from('00ff10203040deadbeef', 'hex');
    const { response, digest } = await sign(stellarSigner.raw, key, { data: `0x${bytes.toString('hex')}` });
    expect(Keypair.fromPublicKey(key.address).verify(bytes, Buffer.from(response.signature as string, 'hex'))).toBe(true);
    expect(digest).toBe(stellarHash(bytes).toString('hex'));
  });

  it('vector: fixed seed, identical to Keypair.fromRawEd25519Seed(seed).sign', async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const key = stellarKey(seed);
    expect(key.address).toBe('GB43KVROR7TFJ6KAPCYRF2FJROTZAH4FHLTJLPWX4DRZCC5NASLGITR6');
    const { response } = await sign(stellarSigner.message, key, { message: 'Hello, Stellar vector' });
    // Produced by @stellar/stellar-sdk 15.1: Keypair.fromRawEd25519Seed(seed).sign(bytes).
    expect(response.signature).toBe(
      '27aa48d1584be1a7707a13ee35004ba57c77240e9832f0759d82ec302ed09bf7ab46f1341ce8717df9e6bec2ada743ce658d47ccffd7c0e28792a02a27ba8b00',
    );
    expect(response.signature).toBe(Keypair.fromRawEd25519Seed(Buffer.from(seed)).sign(Buffer.from('Hello, Stellar vector')).toString('hex'));

    // The same key signs a transaction byte-identically to Transaction.sign(keypair).
    const tx = paymentTransaction(key.address);
    const ours = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: Networks.TESTNET });
    tx.sign(Keypair.fromRawEd25519Seed(Buffer.from(seed)));
    expect(ours.response.signedTransaction).toBe(tx.toXDR());
  });

  it('survives many signatures and stays identical to the SDK (Node key import path)', async () => {
    const key = stellarKey();
    const keypair = Keypair.fromRawEd25519Seed(Buffer.from(key.secret));
    let last = '';
    for (let i = 0; i < 3000; i++) last = (await sign(stellarSigner.message, key, { message: `m${i}` })).response.signature as string;
    expect(last).toBe(keypair.sign(Buffer.from('m2999')).toString('hex'));
  });

  it('sign-transaction: a payment built with the SDK, re-parsed and verified against the network hash', async () => {
    const key = stellarKey();
    const tx = paymentTransaction(key.address);
    const { response, digest, chainId } = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: Networks.TESTNET });
    expect(Object.keys(response)).toEqual(['signedTransaction']);
    const signed = TransactionBuilder.fromXDR(response.signedTransaction as string, Networks.TESTNET) as Transaction;
    expect(signed).toBeInstanceOf(Transaction);
    expect(signed.hash().equals(tx.hash())).toBe(true); // the transaction itself is unchanged
    expect(signed.signatures).toHaveLength(1);
    const keypair = Keypair.fromPublicKey(key.address);
    const decorated = signed.signatures[0]!;
    expect(decorated.hint().equals(keypair.signatureHint())).toBe(true);
    expect(keypair.verify(signed.hash(), decorated.signature())).toBe(true);
    expect(digest).toBe(tx.hash().toString('hex'));
    expect(chainId).toBe('stellar:testnet');

    const mainnet = await sign(transactionOp, key, { transaction: paymentTransaction(key.address, Networks.PUBLIC).toXDR(), networkPassphrase: Networks.PUBLIC });
    expect(mainnet.chainId).toBe('stellar:mainnet');
    const standalone = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: 'Standalone Network ; February 2017' });
    expect(standalone.chainId).toBeNull();
    const proto = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: '__proto__' });
    expect(proto.chainId).toBeNull();
  });

  it('sign-transaction: keeps existing signatures and does not duplicate its own', async () => {
    const key = stellarKey();
    const cosigner = Keypair.random();
    const tx = paymentTransaction(key.address);
    tx.sign(cosigner);
    const once = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: Networks.TESTNET });
    const signed = TransactionBuilder.fromXDR(once.response.signedTransaction as string, Networks.TESTNET) as Transaction;
    expect(signed.signatures).toHaveLength(2);
    expect(cosigner.verify(signed.hash(), signed.signatures[0]!.signature())).toBe(true);
    expect(Keypair.fromPublicKey(key.address).verify(signed.hash(), signed.signatures[1]!.signature())).toBe(true);
    const twice = await sign(transactionOp, key, { transaction: once.response.signedTransaction, networkPassphrase: Networks.TESTNET });
    expect(twice.response.signedTransaction).toBe(once.response.signedTransaction);
  });

  it('sign-transaction with a FROST key (randomized signatures): the duplicate check verifies, so a second run adds nothing', async () => {
    const key = frostTestKeyMaterial('STELLAR');
    const tx = paymentTransaction(key.address);
    const once = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: Networks.TESTNET });
    const twice = await sign(transactionOp, key, { transaction: once.response.signedTransaction, networkPassphrase: Networks.TESTNET });
    expect(twice.response.signedTransaction).toBe(once.response.signedTransaction);
    const signed = TransactionBuilder.fromXDR(once.response.signedTransaction as string, Networks.TESTNET) as Transaction;
    expect(signed.signatures).toHaveLength(1);
    expect(Keypair.fromPublicKey(key.address).verify(signed.hash(), signed.signatures[0]!.signature())).toBe(true);
  });

  it('sign-transaction: a fee bump envelope is signed as the fee bump (outer) transaction', async () => {
    const key = stellarKey();
    const innerSigner = Keypair.random();
    const inner = paymentTransaction(innerSigner.publicKey());
    inner.sign(innerSigner);
    const feeBump = TransactionBuilder.buildFeeBumpTransaction(key.address, '200', inner, Networks.TESTNET);
    const { response, digest } = await sign(transactionOp, key, { transaction: feeBump.toXDR(), networkPassphrase: Networks.TESTNET });
    const signed = TransactionBuilder.fromXDR(response.signedTransaction as string, Networks.TESTNET);
    expect(signed).toBeInstanceOf(FeeBumpTransaction);
    expect(signed.signatures).toHaveLength(1);
    expect(Keypair.fromPublicKey(key.address).verify(feeBump.hash(), signed.signatures[0]!.signature())).toBe(true);
    expect((signed as FeeBumpTransaction).innerTransaction.signatures).toHaveLength(1);
    expect(digest).toBe(feeBump.hash().toString('hex'));
  });

  it('sign-transaction: a wrong passphrase yields a signature that does not verify on the real network', async () => {
    const key = stellarKey();
    const tx = paymentTransaction(key.address, Networks.TESTNET);
    const { response } = await sign(transactionOp, key, { transaction: tx.toXDR(), networkPassphrase: Networks.PUBLIC });
    const asTestnet = TransactionBuilder.fromXDR(response.signedTransaction as string, Networks.TESTNET);
    const asMainnet = TransactionBuilder.fromXDR(response.signedTransaction as string, Networks.PUBLIC);
    const keypair = Keypair.fromPublicKey(key.address);
    expect(keypair.verify(asTestnet.hash(), asTestnet.signatures[0]!.signature())).toBe(false);
    expect(keypair.verify(asMainnet.hash(), asMainnet.signatures[0]!.signature())).toBe(true);
  });

  it('rejects bad input with 400 INVALID_REQUEST', async () => {
    const key = stellarKey();
    const xdr = paymentTransaction(key.address).toXDR();
    const body = transactionOp.body;
    // Schema level.
    await expect400(() => parseInput(stellarSigner.raw.body, { data: '12345' }));
    await expect400(() => parseInput(stellarSigner.raw.body, { data: 'xyz0' }));
    await expect400(() => parseInput(stellarSigner.message.body, { message: 'hi', walletType: 'STELLAR' }));
    await expect400(() => parseInput(body, { transaction: xdr }), /networkPassphrase/);
    await expect400(() => parseInput(body, { transaction: xdr, networkPassphrase: '' }));
    await expect400(() => parseInput(body, { transaction: xdr, networkPassphrase: 'x'.repeat(257) }));
    await expect400(() => parseInput(body, { transaction: xdr, networkPassphrase: Networks.TESTNET, extra: 1 }));
    await expect400(() => parseInput(body, { transaction: '', networkPassphrase: Networks.TESTNET }));
    await expect400(() => parseInput(body, { transaction: 'not base64!', networkPassphrase: Networks.TESTNET }));
    await expect400(() => parseInput(body, { transaction: xdr, networkPassphrase: Networks.TESTNET, broadcast: 'yes' }));
    await expect400(
      () => parseInput(body, { transaction: xdr, networkPassphrase: Networks.TESTNET, broadcast: true }),
      'Stellar transactions are signed only; broadcast is not supported',
    );
    // Also when `sign` is reached without the schema.
    await expect400(
      () => transactionOp.sign(key, { transaction: xdr, networkPassphrase: Networks.TESTNET, broadcast: true }),
      'Stellar transactions are signed only; broadcast is not supported',
    );
    // Decoding level: valid base64 that is not a transaction envelope.
    for (const garbage of ['AAAA', Buffer.from('garbage garbage garbage').toString('base64'), Buffer.concat([Buffer.from(xdr, 'base64'), Buffer.from([0, 0, 0, 0])]).toString('base64'), xdr.slice(0, 40)]) {
      await expect400(() => sign(transactionOp, key, { transaction: garbage, networkPassphrase: Networks.TESTNET }), /not a base64 XDR Stellar transaction envelope/);
    }
    // The envelope is full (20 signatures).
    const full = paymentTransaction(key.address);
    full.sign(...Array.from({ length: 20 }, () => Keypair.random()));
    await expect400(() => sign(transactionOp, key, { transaction: full.toXDR(), networkPassphrase: Networks.TESTNET }), /at most 20/);
    // broadcast: false is plain sign-only.
    const ok = await sign(transactionOp, key, { transaction: xdr, networkPassphrase: Networks.TESTNET, broadcast: false });
    expect(ok.response.signedTransaction).toBeTypeOf('string');
  });
});
