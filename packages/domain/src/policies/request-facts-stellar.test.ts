import { Account, Asset, Keypair, MuxedAccount, Networks, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { requestFactsOf } from './request-facts.ts';
import { signingContext } from './request-facts-testing.ts';

const wallet = Keypair.random().publicKey();
const payee = Keypair.random().publicKey();
const issuer = Keypair.random().publicKey();
const USDC = new Asset('USDC', issuer);

function envelope(operations: xdr.Operation[], passphrase: string = Networks.TESTNET, source = wallet): string {
  const builder = new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase: passphrase });
  for (const op of operations) builder.addOperation(op);
  return builder.setTimeout(300).build().toXDR();
}

function factsOf(transaction: string, networkPassphrase: string = Networks.TESTNET) {
  return requestFactsOf(signingContext('STELLAR', wallet, 'transaction', { transaction, networkPassphrase }));
}

describe('Stellar request facts', () => {
  it('native and credit payments from the wallet: legs in stroops, network from the passphrase', () => {
    const facts = factsOf(
      envelope([
        Operation.payment({ destination: payee, asset: Asset.native(), amount: '12.5' }),
        Operation.payment({ destination: payee, asset: USDC, amount: '0.0000003' }),
        Operation.payment({ destination: payee, asset: USDC, amount: '1' }),
      ]),
    );
    expect(facts).toMatchObject({ walletType: 'STELLAR', action: 'sign_transaction', network: 'stellar:testnet', undecoded: null });
    expect(facts.legs).toEqual([
      { to: payee, asset: 'native', amount: 125_000_000n },
      { to: payee, asset: `USDC:${issuer}`, amount: 3n },
      { to: payee, asset: `USDC:${issuer}`, amount: 10_000_000n },
    ]);
    expect(facts.facts).toMatchObject({
      'request.chainId': 'stellar:testnet',
      'request.value.baseUnits': '125000000',
      'request.token.value.baseUnits': '10000003',
    });
  });

  it('mainnet and futurenet passphrases; an unknown passphrase names no network', () => {
    const ops = [Operation.payment({ destination: payee, asset: Asset.native(), amount: '1' })];
    expect(factsOf(envelope(ops, Networks.PUBLIC), Networks.PUBLIC).network).toBe('stellar:mainnet');
    expect(factsOf(envelope(ops, Networks.FUTURENET), Networks.FUTURENET).network).toBe('stellar:futurenet');
    const privateNet = factsOf(envelope(ops, 'My private net'), 'My private net');
    expect(privateNet.network).toBeNull();
    expect(privateNet.facts['request.chainId']).toBeUndefined();
    expect(privateNet.legs).toHaveLength(1);
  });

  it('createAccount is a native leg; accountMerge and strict-receive path payments have no amount', () => {
    const facts = factsOf(
      envelope([
        Operation.createAccount({ destination: payee, startingBalance: '2' }),
        Operation.accountMerge({ destination: payee }),
        Operation.pathPaymentStrictReceive({ sendAsset: USDC, sendMax: '10', destination: payee, destAsset: Asset.native(), destAmount: '1', path: [] }),
        Operation.pathPaymentStrictSend({ sendAsset: USDC, sendAmount: '4', destination: payee, destAsset: Asset.native(), destMin: '1', path: [] }),
      ]),
    );
    expect(facts.legs).toEqual([
      { to: payee, asset: 'native', amount: 20_000_000n },
      { to: payee, asset: 'native', amount: null },
      { to: payee, asset: `USDC:${issuer}`, amount: null },
      { to: payee, asset: `USDC:${issuer}`, amount: 40_000_000n },
    ]);
    expect(facts.facts['request.value.baseUnits']).toBe('20000000');
    expect(facts.facts['request.token.value.baseUnits']).toBe('40000000');
    expect(facts.undecoded).toMatch(/accountMerge.*pathPaymentStrictReceive/);
  });

  it('operations of another source are not the wallet’s; trustlines move nothing; offers are unknown movements', () => {
    const other = Keypair.random().publicKey();
    const facts = factsOf(
      envelope([
        Operation.payment({ destination: payee, asset: Asset.native(), amount: '5', source: other }),
        Operation.changeTrust({ asset: USDC }),
        Operation.manageSellOffer({ selling: USDC, buying: Asset.native(), amount: '1', price: '1' }),
      ]),
    );
    expect(facts.legs).toEqual([{ to: null, asset: null, amount: null }]);
    expect(facts.undecoded).toBe('operation manageSellOffer not decoded');
    expect(facts.facts['request.value.baseUnits']).toBe('0');
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
  });

  it('a fee bump is read through its inner transaction; a muxed destination is its base account', () => {
    const muxed = new MuxedAccount(new Account(payee, '0'), '42').accountId();
    const inner = TransactionBuilder.fromXDR(envelope([Operation.payment({ destination: muxed, asset: Asset.native(), amount: '1' })]), Networks.TESTNET);
    const feeSource = Keypair.random();
    const bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, '200', inner as never, Networks.TESTNET);
    const facts = factsOf(bump.toXDR());
    expect(facts.legs).toEqual([{ to: payee, asset: 'native', amount: 10_000_000n }]);
  });

  it('undecodable envelopes, messages and raw bytes', () => {
    const broken = factsOf(Buffer.from('nope').toString('base64'));
    expect(broken).toMatchObject({ legs: [], undecoded: 'not a decodable Stellar transaction envelope' });
    const raw = requestFactsOf(signingContext('STELLAR', wallet, 'message', { message: 'hi' }));
    expect(raw).toMatchObject({ action: 'raw_signature', network: null, legs: [] });
  });
});
