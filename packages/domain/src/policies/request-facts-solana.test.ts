import { randomBytes } from 'node:crypto';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
} from '@solana/kit';
import { getAssignInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import { requestFactsOf } from './request-facts.ts';
import { solanaNetworkOf } from './request-facts-solana.ts';
import { signingContext } from './request-facts-testing.ts';

const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' as Address;

const newAddress = async () => (await generateKeyPairSigner()).address;

function build(feePayer: Address, instructions: Instruction[], lookupTables?: Record<Address, Address[]>): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(getBase58Decoder().decode(randomBytes(32))), lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransaction(lookupTables ? compressTransactionMessageUsingAddressLookupTables(message, lookupTables as never) : message);
  return Buffer.from(getTransactionEncoder().encode(compiled)).toString('base64');
}

function factsOf(wallet: Address, transaction: string, options: { action?: string; network?: string; bodyNetwork?: string } = {}) {
  const body = { transaction, ...(options.bodyNetwork ? { network: options.bodyNetwork } : {}) };
  return requestFactsOf(signingContext('SOLANA', wallet, 'transaction', body, { action: options.action, network: options.network ?? options.bodyNetwork }));
}

const computeUnitLimit: Instruction = {
  programAddress: 'ComputeBudget111111111111111111111111111111' as Address,
  data: Uint8Array.of(2, 0x40, 0x0d, 0x03, 0x00),
};

async function accounts() {
  return { wallet: await newAddress(), payee: await newAddress(), mint: await newAddress(), source: await newAddress(), destination: await newAddress() };
}

describe('Solana request facts', () => {
  it('a SOL transfer built by the service: transfer, the configured cluster, one native leg', async () => {
    const { wallet, payee } = await accounts();
    const tx = build(wallet, [getTransferSolInstruction({ source: wallet as never, destination: payee, amount: 1_500_000n })]);
    const facts = factsOf(wallet, tx, { action: 'wallet.sign.transfer', bodyNetwork: 'SOLANA_DEVNET' });
    expect(facts).toMatchObject({ walletType: 'SOLANA', action: 'transfer', network: 'solana:devnet', undecoded: null });
    expect(facts.legs).toEqual([{ to: payee, asset: 'native', amount: 1_500_000n }]);
    expect(facts.facts).toMatchObject({ 'request.chainId': 'solana:devnet', 'request.value.baseUnits': '1500000' });
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
  });

  it('an SPL TransferChecked with ATA creation and a compute budget: a token leg (mint, destination token account)', async () => {
    const { wallet, payee, mint, source, destination } = await accounts();
    const tx = build(wallet, [
      computeUnitLimit,
      getCreateAssociatedTokenIdempotentInstruction({ payer: wallet as never, ata: destination, owner: payee, mint }),
      getTransferCheckedInstruction({ source, mint, destination, authority: wallet, amount: 2_000_000n, decimals: 6 }),
    ]);
    const facts = factsOf(wallet, tx, { action: 'wallet.sign.sign-transaction' });
    expect(facts).toMatchObject({ action: 'sign_transaction', network: null, undecoded: null });
    expect(facts.legs).toEqual([{ to: destination, asset: mint, amount: 2_000_000n }]);
    expect(facts.facts).toMatchObject({ 'request.value.baseUnits': '0', 'request.token.value.baseUnits': '2000000' });
    expect(facts.facts['request.chainId']).toBeUndefined();
  });

  it('Token-2022 TransferChecked is a token leg too; amounts of one mint are summed', async () => {
    const { wallet, mint, source, destination } = await accounts();
    const other = await newAddress();
    const tx = build(wallet, [
      getTransferCheckedInstruction({ source, mint, destination, authority: wallet, amount: 5n, decimals: 0 }, { programAddress: TOKEN_2022 }),
      getTransferCheckedInstruction({ source, mint, destination: other, authority: wallet, amount: 7n, decimals: 0 }),
    ]);
    const facts = factsOf(wallet, tx);
    expect(facts.legs).toEqual([
      { to: destination, asset: mint, amount: 5n },
      { to: other, asset: mint, amount: 7n },
    ]);
    expect(facts.facts['request.token.value.baseUnits']).toBe('12');
  });

  it('two mints: both legs, but no token total (rules on it fail closed)', async () => {
    const { wallet, mint, source, destination } = await accounts();
    const mint2 = await newAddress();
    const tx = build(wallet, [
      getTransferCheckedInstruction({ source, mint, destination, authority: wallet, amount: 5n, decimals: 0 }),
      getTransferCheckedInstruction({ source, mint: mint2, destination, authority: wallet, amount: 6n, decimals: 0 }),
    ]);
    const facts = factsOf(wallet, tx);
    expect(facts.legs.map((l) => l.asset)).toEqual([mint, mint2]);
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
  });

  it('an SPL Transfer names no mint: a leg without asset beside the decoded one, no token total', async () => {
    const { wallet, mint, source, destination } = await accounts();
    const tx = build(wallet, [
      getTransferCheckedInstruction({ source, mint, destination, authority: wallet, amount: 5n, decimals: 0 }),
      getTransferInstruction({ source, destination, authority: wallet, amount: 9n }),
    ]);
    const facts = factsOf(wallet, tx);
    expect(facts.legs).toEqual([
      { to: destination, asset: mint, amount: 5n },
      { to: destination, asset: null, amount: 9n },
    ]);
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
    expect(facts.facts['request.token.address']).toBeUndefined();
    expect(facts.undecoded).toMatch(/SPL Token instruction without a decodable mint/);
  });

  it('an unknown program: an unknown movement, native total of the decoded legs only', async () => {
    const { wallet, payee } = await accounts();
    const program = await newAddress();
    const tx = build(wallet, [
      getTransferSolInstruction({ source: wallet as never, destination: payee, amount: 10n }),
      { programAddress: program, accounts: [{ address: wallet, role: AccountRole.WRITABLE_SIGNER }], data: Uint8Array.of(1, 2, 3) },
    ]);
    const facts = factsOf(wallet, tx);
    expect(facts.legs).toEqual([
      { to: payee, asset: 'native', amount: 10n },
      { to: null, asset: null, amount: null },
    ]);
    expect(facts.facts['request.value.baseUnits']).toBe('10');
    expect(facts.undecoded).toBe(`instruction of program ${program} not decoded`);
  });

  it('System Assign of the wallet hands its whole balance to the new owner program: a native leg without payee or amount', async () => {
    const { wallet } = await accounts();
    const program = await newAddress();
    const facts = factsOf(wallet, build(wallet, [getAssignInstruction({ account: createNoopSigner(wallet), programAddress: program })]));
    expect(facts.legs).toEqual([{ to: null, asset: 'native', amount: null }]);
    expect(facts.undecoded).toMatch(/native movement not decoded/);
    // Assigning another account (a new one the wallet funded) moves nothing of the wallet's.
    const other = await generateKeyPairSigner();
    expect(factsOf(wallet, build(wallet, [getAssignInstruction({ account: other, programAddress: program })])).legs).toEqual([]);
  });

  it('transfers another signer authorizes move nothing of the wallet', async () => {
    const { wallet, payee, mint, source, destination } = await accounts();
    const other = await generateKeyPairSigner();
    const tx = build(wallet, [
      getTransferSolInstruction({ source: other, destination: payee, amount: 10n }),
      getTransferCheckedInstruction({ source, mint, destination, authority: other, amount: 5n, decimals: 0 }),
    ]);
    const facts = factsOf(wallet, tx);
    expect(facts.legs).toEqual([]);
    expect(facts.facts['request.value.baseUnits']).toBe('0');
    expect(facts.undecoded).toBeNull();
  });

  it('a destination from an address lookup table is not resolvable: a leg without payee', async () => {
    const { wallet, payee } = await accounts();
    const table = await newAddress();
    const tx = build(wallet, [getTransferSolInstruction({ source: wallet as never, destination: payee, amount: 3n })], { [table]: [payee] });
    const facts = factsOf(wallet, tx);
    expect(facts.legs).toEqual([{ to: null, asset: 'native', amount: 3n }]);
  });

  it('bytes that are no transaction: nothing decoded, no throw (the signer answers 400)', async () => {
    const facts = factsOf(await newAddress(), Buffer.from('not a transaction').toString('base64'));
    expect(facts.legs).toEqual([]);
    expect(facts.undecoded).toMatch(/not a decodable/);
    expect(facts.facts['request.value.baseUnits']).toBe('0');
  });

  it('messages and raw bytes: raw_signature without network or facts', async () => {
    const wallet = await newAddress();
    for (const [operation, body] of [['message', { message: 'hi' }], ['raw', { data: 'abcd' }]] as const) {
      const facts = requestFactsOf(signingContext('SOLANA', wallet, operation, body));
      expect(facts).toMatchObject({ action: 'raw_signature', network: null, legs: [], undecoded: null });
      expect(Object.keys(facts.facts)).toEqual(['wallet.id']);
    }
  });

  it('maps the service network names to the chainId form', () => {
    expect(solanaNetworkOf('SOLANA')).toBe('solana:mainnet');
    expect(solanaNetworkOf('SOLANA_DEVNET')).toBe('solana:devnet');
    expect(solanaNetworkOf('SOLANA_TESTNET')).toBe('solana:testnet');
    expect(solanaNetworkOf('constructor')).toBeNull();
    expect(solanaNetworkOf(null)).toBeNull();
  });
});
