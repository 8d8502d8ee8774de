import { Transaction } from '@mysten/sui/transactions';
import { toBase58 } from '@mysten/sui/utils';
import { describe, expect, it } from 'vitest';
import { expectInvalidRequest } from '../signing/testing.ts';
import { requestFactsOf } from './request-facts.ts';
import { suiNetworkOfExpiration, suiRequestNetwork } from './request-facts-sui.ts';
import { signingContext } from './request-facts-testing.ts';

const wallet = `0x${'aa'.repeat(32)}`;
const recipient = `0x${'22'.repeat(32)}`;

/** A TransactionData built offline with the SDK, as the signer tests do. */
async function build(sender: string, commands: (tx: Transaction) => void): Promise<string> {
  const tx = new Transaction();
  tx.setSender(sender);
  tx.setGasPrice(1000);
  tx.setGasBudget(10_000_000);
  tx.setGasPayment([{ objectId: `0x${'11'.repeat(32)}`, version: '7', digest: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' }]);
  commands(tx);
  return Buffer.from(await tx.build()).toString('base64');
}

const factsOf = (transaction: string) => requestFactsOf(signingContext('SUI', wallet, 'transaction', { transaction }));

describe('Sui request facts', () => {
  it('coins split off the gas coin and transferred: native legs to the recipient', async () => {
    const facts = factsOf(
      await build(wallet, (tx) => {
        const [a, b] = tx.splitCoins(tx.gas, [1000, 25]);
        tx.transferObjects([a!, b!], recipient);
      }),
    );
    expect(facts).toMatchObject({ walletType: 'SUI', action: 'sign_transaction', network: null, undecoded: null });
    expect(facts.legs).toEqual([
      { to: recipient, asset: 'native', amount: 1000n },
      { to: recipient, asset: 'native', amount: 25n },
    ]);
    expect(facts.facts['request.value.baseUnits']).toBe('1025');
  });

  it('the gas coin itself transferred: a native leg without amount', async () => {
    const facts = factsOf(await build(wallet, (tx) => tx.transferObjects([tx.gas], recipient)));
    expect(facts.legs).toEqual([{ to: recipient, asset: 'native', amount: null }]);
    expect(facts.facts['request.value.baseUnits']).toBe('0');
    expect(facts.undecoded).toMatch(/gas coin/);
  });

  it('Move calls and transfers of other objects are unknown movements', async () => {
    const facts = factsOf(
      await build(wallet, (tx) => {
        tx.moveCall({ target: '0x2::coin::zero', typeArguments: ['0x2::sui::SUI'] });
        tx.transferObjects([tx.objectRef({ objectId: `0x${'33'.repeat(32)}`, version: '3', digest: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' })], recipient);
      }),
    );
    expect(facts.legs).toEqual([unknown(), unknown()]);
    expect(facts.undecoded).toMatch(/Move call 0x0+2::coin::zero not decoded/);
  });

  it('a transaction another account sends moves nothing of the wallet (a sponsor pays fees only)', async () => {
    const facts = factsOf(
      await build(recipient, (tx) => {
        const [coin] = tx.splitCoins(tx.gas, [5]);
        tx.transferObjects([coin!], wallet);
      }),
    );
    expect(facts.legs).toEqual([]);
  });

  it('undecodable bytes, messages and raw bytes', () => {
    expect(factsOf(Buffer.from('nope').toString('base64'))).toMatchObject({ legs: [], undecoded: 'not a decodable Sui TransactionData' });
    expect(requestFactsOf(signingContext('SUI', wallet, 'raw', { data: 'abcd' }))).toMatchObject({ action: 'raw_signature', network: null });
  });

  it('the body network is the request network when the transaction proves none', async () => {
    const context = signingContext('SUI', wallet, 'transaction', { transaction: await build(wallet, () => undefined) });
    const facts = requestFactsOf({ ...context, input: { ...context.input, network: 'sui:testnet' } });
    expect(facts.network).toBe('sui:testnet');
    expect(facts.facts['request.chainId']).toBe('sui:testnet');
  });

  it('a ValidDuring chain identifier proves the network; a contradicting body network is 400', async () => {
    const digest = (prefix: string) => toBase58(Uint8Array.from(Buffer.concat([Buffer.from(prefix, 'hex'), Buffer.alloc(28, 7)])));
    const mainnet = { ValidDuring: { chain: digest('35834a8a'), nonce: 1 } };
    const testnet = { ValidDuring: { chain: digest('4c78adac'), nonce: 1 } };
    expect(suiNetworkOfExpiration(mainnet)).toBe('sui:mainnet');
    expect(suiNetworkOfExpiration(testnet)).toBe('sui:testnet');
    expect(suiNetworkOfExpiration({ ValidDuring: { chain: digest('01020304') } })).toBeNull();
    expect(suiNetworkOfExpiration({ Epoch: 5 })).toBeNull();
    expect(suiNetworkOfExpiration({ None: true })).toBeNull();
    expect(suiRequestNetwork(undefined, mainnet)).toBe('sui:mainnet');
    expect(suiRequestNetwork('sui:mainnet', mainnet)).toBe('sui:mainnet');
    expect(suiRequestNetwork('sui:devnet', { None: true })).toBe('sui:devnet');
    await expectInvalidRequest(() => suiRequestNetwork('sui:testnet', mainnet), /sui:testnet contradicts the transaction, which is for sui:mainnet/);
  });
});

function unknown() {
  return { to: null, asset: null, amount: null };
}
