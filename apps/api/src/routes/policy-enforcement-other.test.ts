import { randomBytes } from 'node:crypto';
import { Secp256k1, Secp256k1Signature, sha256 } from '@cosmjs/crypto';
import { makeSignDoc, serializeSignDoc } from '@cosmjs/amino';
import { fromHex, toBech32, toHex } from '@cosmjs/encoding';
import { Transaction as SuiTransaction } from '@mysten/sui/transactions';
import { verifyTransactionSignature } from '@mysten/sui/verify';
import { getPublicKeyFromAddress, verifySignature, address as solanaAddress, type SignatureBytes } from '@solana/kit';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { testDatabaseKinds } from '@wallet/db';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { SignDoc, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { recoverAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { denial, guardrail, policyProject, traces } from '../testing/policy-fixtures.ts';

const RAW_DENIED = { code: 'POLICY_DENIED', message: expect.stringContaining('Raw signatures'), reason: 'raw-signature-not-allowed', deniedBy: [{ reason: 'raw-signature-not-allowed' }] };

/** A Stellar envelope from `source` (sequence 1) with `operations`. */
function stellarEnvelope(source: string, operations: xdr.Operation[], passphrase: string = Networks.TESTNET): string {
  const builder = new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase: passphrase });
  for (const op of operations) builder.addOperation(op);
  return builder.setTimeout(300).build().toXDR();
}

/** The wallet's signature on a signed envelope, verified over the transaction hash of `passphrase`. */
function stellarSignedBy(signed: string, wallet: string, passphrase: string = Networks.TESTNET): boolean {
  const tx = TransactionBuilder.fromXDR(signed, passphrase);
  const key = Keypair.fromPublicKey(wallet);
  return tx.signatures.some((s) => key.verify(tx.hash(), s.signature()));
}

/** A Sui TransactionData built offline: `amounts` split off the gas coin and sent to `recipient`. */
async function suiTransfer(sender: string, recipient: string, amounts: number[]): Promise<string> {
  const tx = new SuiTransaction();
  tx.setSender(sender);
  tx.setGasPrice(1000);
  tx.setGasBudget(10_000_000);
  tx.setGasPayment([{ objectId: `0x${'11'.repeat(32)}`, version: '7', digest: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' }]);
  const coins = tx.splitCoins(tx.gas, amounts);
  tx.transferObjects(amounts.map((_, i) => coins[i]!), recipient);
  return Buffer.from(await tx.build()).toString('base64');
}

/** Direct SignDoc bytes (hex) of bank sends from `from`, as a Cosmos wallet signs them with sign-raw. */
function cosmosSignDoc(chainId: string, sends: { from: string; to: string; amount: { denom: string; amount: string }[] }[]): string {
  const messages = sends.map((s) => ({ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(MsgSend.fromPartial({ fromAddress: s.from, toAddress: s.to, amount: s.amount })).finish() }));
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages, memo: 'policy test' })).finish();
  return toHex(SignDoc.encode(SignDoc.fromPartial({ bodyBytes, authInfoBytes: Uint8Array.of(10, 0), chainId, accountNumber: 7n })).finish());
}

/**
 * Guardrails on Stellar and Sui sign-transaction and Cosmos sign-raw over real HTTP (signing
 * needs no chain), and the raw-signature default on every wallet type.
 */
describe.each(testDatabaseKinds)('policy enforcement on Stellar, Sui and Cosmos wallets (%s)', (kind) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('Stellar sign-transaction: payments in XLM and CODE:ISSUER under recipient and amount rules, for stellar:testnet only', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('STELLAR');
    const payee = Keypair.random().publicKey();
    const usdc = new Asset('USDC', Keypair.random().publicKey());
    const usdcId = `USDC:${usdc.getIssuer()}`;
    await p.apply(
      guardrail('stellar-guard', 'STELLAR', [
        { id: 'recipients', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.to', op: 'nin', value: [payee] } },
        { id: 'xlm-cap', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '100000000' } },
        { id: 'usdc-cap', effect: 'deny', actions: ['sign_transaction'], condition: { all: [{ fact: 'request.token.address', op: 'eq', value: usdcId }, { fact: 'request.token.value.baseUnits', op: 'gt', value: '50000000' }] } },
        { id: 'usdc-daily', effect: 'deny', actions: ['sign_transaction'], condition: { aggregate: { meter: 'spend.token', asset: usdcId, window: '1d' }, op: 'gt', value: '120000000' } },
      ], { chainId: ['stellar:testnet'] }),
    );
    const sign = (operations: xdr.Operation[], passphrase: string = Networks.TESTNET) =>
      p.post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: stellarEnvelope(w.address, operations, passphrase), networkPassphrase: passphrase });
    const pay = (destination: string, amount: string, asset = Asset.native()) => Operation.payment({ destination, asset, amount });

    const xlm = await sign([pay(payee, '10')]);
    expect(xlm.status, JSON.stringify(xlm.body)).toBe(200);
    expect(stellarSignedBy(xlm.body.signedTransaction, w.address)).toBe(true);
    const credit = await sign([pay(payee, '5', usdc)]);
    expect(credit.status, JSON.stringify(credit.body)).toBe(200);
    expect(stellarSignedBy(credit.body.signedTransaction, w.address)).toBe(true);
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 2, records: 0, reservations: 1 });

    expect((await sign([pay(Keypair.random().publicKey(), '1')])).body.deniedBy).toEqual([denial('stellar-guard', 'recipients')]);
    expect((await sign([pay(payee, '10.0000001')])).body.deniedBy).toEqual([denial('stellar-guard', 'xlm-cap')]);
    expect((await sign([pay(payee, '5.0000001', usdc)])).body.deniedBy).toEqual([denial('stellar-guard', 'usdc-cap')]);
    // Two payments of one asset add up: 3 + 3 USDC is over the 5 USDC cap.
    expect((await sign([pay(payee, '3', usdc), pay(payee, '3', usdc)])).body.deniedBy).toEqual([denial('stellar-guard', 'usdc-cap')]);
    expect(await traces(app, w.id)).toEqual(before);
    // 5 + 5 USDC signed; 2.0000001 more is over the day's 12.
    expect((await sign([pay(payee, '5', usdc)])).status).toBe(200);
    const after = await traces(app, w.id);
    expect((await sign([pay(payee, '2.0000001', usdc)])).body.deniedBy).toEqual([denial('stellar-guard', 'usdc-daily', 'spend-limit-exceeded')]);
    expect(await traces(app, w.id)).toEqual(after);
    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/stellar-guard/usage?chainId=stellar:testnet`);
    expect(usage.body.meters).toEqual([expect.objectContaining({ ruleId: 'usdc-daily', asset: usdcId, spent: '100000000', remaining: '20000000' })]);

    // The selector names stellar:testnet: a mainnet envelope is not judged by this policy.
    const mainnet = await sign([pay(Keypair.random().publicKey(), '1000')], Networks.PUBLIC);
    expect(mainnet.status, JSON.stringify(mainnet.body)).toBe(200);
    expect(stellarSignedBy(mainnet.body.signedTransaction, w.address, Networks.PUBLIC)).toBe(true);
  });

  it('Sui sign-transaction: SUI split off the gas coin and transferred, under an amount cap', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('SUI');
    const recipient = `0x${randomBytes(32).toString('hex')}`;
    await p.apply(guardrail('sui-cap', 'SUI', [{ id: 'per-transaction', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000000' } }]));
    const sign = async (amounts: number[]) => p.post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: await suiTransfer(w.address, recipient, amounts) });

    const ok = await sign([600_000, 400_000]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const signer = await verifyTransactionSignature(Buffer.from(ok.body.transaction, 'base64'), ok.body.signature);
    expect(signer.toSuiAddress()).toBe(w.address);
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 1, records: 0 });

    // Every split counts: 600k + 400k + 1 is over the cap although no single coin is.
    expect((await sign([600_000, 400_001])).body.deniedBy).toEqual([denial('sui-cap', 'per-transaction')]);
    expect((await sign([1_000_001])).body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [denial('sui-cap', 'per-transaction')] });
    expect(await traces(app, w.id)).toEqual(before);
  });

  it('Cosmos sign-raw of SignDoc bank sends: recipients, a denom cap and a daily spend.token meter for cosmos:<chain-id>', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('COSMOS');
    const payee = toBech32('cosmos', randomBytes(20));
    await p.apply(
      guardrail('cosmos-guard', 'COSMOS', [
        { id: 'raw', effect: 'allow', actions: ['raw_signature'] },
        { id: 'recipients', effect: 'deny', actions: ['raw_signature'], condition: { fact: 'request.to', op: 'nin', value: [payee] } },
        { id: 'uatom-cap', effect: 'deny', actions: ['raw_signature'], condition: { all: [{ fact: 'request.token.address', op: 'eq', value: 'uatom' }, { fact: 'request.token.value.baseUnits', op: 'gt', value: '1000' }] } },
        { id: 'uatom-daily', effect: 'deny', actions: ['raw_signature'], condition: { aggregate: { meter: 'spend.token', asset: 'uatom', window: '1d' }, op: 'gt', value: '1500' } },
      ], { chainId: ['cosmos:theta-testnet-001'] }),
    );
    const signDoc = (amount: { denom: string; amount: string }[], to = payee, chainId = 'theta-testnet-001') => cosmosSignDoc(chainId, [{ from: w.address, to, amount }]);
    const sign = (data: string) => p.post(`/v1/wallets/${w.id}/sign-raw`, { data });

    const data = signDoc([{ denom: 'uatom', amount: '1000' }]);
    const ok = await sign(data);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(fromHex(ok.body.signature)), sha256(fromHex(data)), fromHex(w.publicKey))).toBe(true);
    // Another denom is outside the uatom cap and meter.
    expect((await sign(signDoc([{ denom: 'ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2', amount: '5000' }]))).status).toBe(200);
    const before = await traces(app, w.id);
    expect(before).toMatchObject({ signatures: 2, records: 0 });

    expect((await sign(signDoc([{ denom: 'uatom', amount: '1' }], toBech32('cosmos', randomBytes(20))))).body.deniedBy).toEqual([denial('cosmos-guard', 'recipients')]);
    expect((await sign(signDoc([{ denom: 'uatom', amount: '1001' }]))).body.deniedBy).toEqual([denial('cosmos-guard', 'uatom-cap'), denial('cosmos-guard', 'uatom-daily', 'spend-limit-exceeded')]);
    expect((await sign(signDoc([{ denom: 'uatom', amount: '501' }]))).body.deniedBy).toEqual([denial('cosmos-guard', 'uatom-daily', 'spend-limit-exceeded')]);
    // sign-message signs the same bytes: a canonical amino sign doc is judged like a direct one.
    const amino = (to: string, amount: string) => Buffer.from(serializeSignDoc(makeSignDoc([{ type: 'cosmos-sdk/MsgSend', value: { from_address: w.address, to_address: to, amount: [{ denom: 'uatom', amount }] } }], { amount: [], gas: '200000' }, 'theta-testnet-001', '', 7, 1))).toString('utf8');
    expect((await p.post(`/v1/wallets/${w.id}/sign-message`, { message: amino(toBech32('cosmos', randomBytes(20)), '1') })).body.deniedBy).toEqual([denial('cosmos-guard', 'recipients')]);
    expect((await p.post(`/v1/wallets/${w.id}/sign-message`, { message: amino(payee, '501') })).body.deniedBy).toEqual([denial('cosmos-guard', 'uatom-daily', 'spend-limit-exceeded')]);
    // Bytes that are no sign document, and a SignDoc of another chain: the policy does not apply, raw stays denied.
    expect((await sign('deadbeef')).body).toEqual(RAW_DENIED);
    expect((await sign(signDoc([{ denom: 'uatom', amount: '1' }], payee, 'cosmoshub-4'))).body).toEqual(RAW_DENIED);
    expect(await traces(app, w.id)).toEqual(before);

    expect((await sign(signDoc([{ denom: 'uatom', amount: '500' }]))).status).toBe(200); // 1500: at the limit
    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/cosmos-guard/usage?chainId=cosmos:theta-testnet-001`);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.meters).toEqual([expect.objectContaining({ ruleId: 'uatom-daily', meter: 'spend.token', asset: 'uatom', spent: '1500', remaining: '0' })]);
  });

  it('raw signatures are denied on every wallet type while permissions are on, and an allow rule lifts it per wallet type', async () => {
    const p = await policyProject(app);
    const types = ['EVM', 'SOLANA', 'STELLAR', 'SUI', 'COSMOS'] as const;
    const wallets = Object.fromEntries(await Promise.all(types.map(async (t) => [t, await p.wallet(t)] as const))) as Record<(typeof types)[number], { id: string; address: string; publicKey: string }>;
    const hash = `0x${'ab'.repeat(32)}`;
    const raw = (t: (typeof types)[number]) => p.post(`/v1/wallets/${wallets[t].id}/sign-raw`, { data: hash });
    const message = (t: (typeof types)[number]) => p.post(`/v1/wallets/${wallets[t].id}/sign-message`, { message: 'hello' });
    const nonEvm = types.filter((t) => t !== 'EVM');

    // Permissions off: no active policy, raw signatures are signed.
    expect((await raw('SUI')).status).toBe(200);
    // One policy of any wallet type turns permissions on for the project and environment.
    await p.apply(guardrail('evm-only', 'EVM', [{ id: 'no-cancel', effect: 'deny', actions: ['cancel_transaction'] }]));
    const before = await Promise.all(types.map((t) => traces(app, wallets[t].id)));
    for (const t of types) expect((await raw(t)).body, t).toEqual(RAW_DENIED);
    for (const t of nonEvm) expect((await message(t)).body, t).toEqual(RAW_DENIED);
    expect((await message('EVM')).status).toBe(200); // EIP-191 is sign_message, not raw, on EVM
    expect(await Promise.all(types.map((t) => traces(app, wallets[t].id)))).toEqual(before.map((b, i) => (types[i] === 'EVM' ? { ...b, signatures: b.signatures + 1 } : b)));

    // An allow rule lifts it for its wallet type only.
    await p.apply(guardrail('stellar-raw', 'STELLAR', [{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }]));
    const stellar = await raw('STELLAR');
    expect(stellar.status).toBe(200);
    expect(Keypair.fromPublicKey(wallets.STELLAR.address).verify(Buffer.from(hash.slice(2), 'hex'), Buffer.from(stellar.body.signature, 'hex'))).toBe(true);
    expect((await message('STELLAR')).status).toBe(200);
    expect((await raw('SOLANA')).body).toEqual(RAW_DENIED);

    for (const t of types.filter((x) => x !== 'STELLAR')) await p.apply(guardrail(`${t.toLowerCase()}-raw`, t, [{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }]));
    const evm = await raw('EVM');
    expect(evm.status).toBe(200);
    expect(await recoverAddress({ hash: hash as Hex, signature: `0x${evm.body.signature}` })).toBe(wallets.EVM.address);
    const solana = await message('SOLANA');
    expect(await verifySignature(await getPublicKeyFromAddress(solanaAddress(wallets.SOLANA.address)), Buffer.from(solana.body.signature, 'hex') as unknown as SignatureBytes, new TextEncoder().encode('hello'))).toBe(true);
    const cosmos = await raw('COSMOS');
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(fromHex(cosmos.body.signature)), sha256(fromHex(hash.slice(2))), fromHex(wallets.COSMOS.publicKey))).toBe(true);
    for (const t of nonEvm) expect([(await raw(t)).status, (await message(t)).status], t).toEqual([200, 200]);
  });
});
