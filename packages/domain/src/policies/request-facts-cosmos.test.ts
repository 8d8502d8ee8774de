import { makeSignDoc, serializeSignDoc, type AminoMsg, type StdFee } from '@cosmjs/amino';
import { fromBech32, toBech32, toHex } from '@cosmjs/encoding';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgDelegate } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { SignDoc, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../custody/keys.ts';
import { deriveAddress } from '../wallets/addresses.ts';
import { requestFactsOf } from './request-facts.ts';
import { signingContext } from './request-facts-testing.ts';

const wallet = deriveAddress('COSMOS', generateKey('DKLS').publicKey, 'cosmos');
const payee = toBech32('cosmos', randomBytes(20));
const fee: StdFee = { amount: [{ denom: 'uatom', amount: '500' }], gas: '200000' };

/** Protobuf direct sign bytes, as cosmjs `makeSignDoc` + `SignDoc.encode` produce them. */
function directSignBytes(messages: { typeUrl: string; value: Uint8Array }[], chainId = 'cosmoshub-4'): Uint8Array {
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages, memo: 'policy test' })).finish();
  const doc = SignDoc.fromPartial({ bodyBytes, authInfoBytes: Uint8Array.of(10, 0), chainId, accountNumber: 7n });
  return SignDoc.encode(doc).finish();
}

const send = (from: string, amount: { denom: string; amount: string }[]) => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: MsgSend.encode(MsgSend.fromPartial({ fromAddress: from, toAddress: payee, amount })).finish(),
});

const rawFacts = (bytes: Uint8Array) => requestFactsOf(signingContext('COSMOS', wallet, 'raw', { data: toHex(bytes) }));

describe('Cosmos request facts', () => {
  it('a direct SignDoc with a bank send: raw_signature with the chain id and one leg per coin', () => {
    const facts = rawFacts(directSignBytes([send(wallet, [{ denom: 'uatom', amount: '1500' }, { denom: 'ibc/ABC', amount: '3' }])]));
    expect(facts).toMatchObject({ walletType: 'COSMOS', action: 'raw_signature', network: 'cosmos:cosmoshub-4', undecoded: null });
    expect(facts.legs).toEqual([
      { to: payee, asset: 'uatom', amount: 1500n },
      { to: payee, asset: 'ibc/ABC', amount: 3n },
    ]);
    expect(facts.facts['request.chainId']).toBe('cosmos:cosmoshub-4');
    // Several denoms: no token total; no native value on Cosmos (every denom is a token asset).
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
    expect(facts.facts['request.value.baseUnits']).toBeUndefined();
  });

  it('sends of one denom are summed; a send from another account is not the wallet’s', () => {
    const other = toBech32('cosmos', randomBytes(20));
    const facts = rawFacts(directSignBytes([send(wallet, [{ denom: 'uatom', amount: '10' }]), send(wallet, [{ denom: 'uatom', amount: '5' }]), send(other, [{ denom: 'uatom', amount: '99' }])]));
    expect(facts.legs).toHaveLength(2);
    expect(facts.facts['request.token.value.baseUnits']).toBe('15');
  });

  it('the wallet on another chain prefix is still the wallet (same account bytes)', () => {
    const osmo = toBech32('osmo', fromBech32(wallet, 256).data);
    const facts = rawFacts(directSignBytes([send(osmo, [{ denom: 'uosmo', amount: '1' }])], 'osmosis-1'));
    expect(facts).toMatchObject({ network: 'cosmos:osmosis-1', legs: [{ to: payee, asset: 'uosmo', amount: 1n }] });
  });

  it('other messages are unknown movements beside the decoded send', () => {
    const delegate = {
      typeUrl: '/cosmos.staking.v1beta1.MsgDelegate',
      value: MsgDelegate.encode(MsgDelegate.fromPartial({ delegatorAddress: wallet, validatorAddress: 'cosmosvaloper1x', amount: { denom: 'uatom', amount: '1' } })).finish(),
    };
    const facts = rawFacts(directSignBytes([send(wallet, [{ denom: 'uatom', amount: '10' }]), delegate]));
    expect(facts.legs).toEqual([
      { to: payee, asset: 'uatom', amount: 10n },
      { to: null, asset: null, amount: null },
    ]);
    expect(facts.facts['request.token.value.baseUnits']).toBeUndefined();
    expect(facts.undecoded).toBe('message /cosmos.staking.v1beta1.MsgDelegate not decoded');
  });

  it('an all-uppercase bech32 payee (valid: chains lower-case it) is the payee policies name in lower case', () => {
    const upper = payee.toUpperCase();
    const direct = rawFacts(directSignBytes([{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(MsgSend.fromPartial({ fromAddress: wallet, toAddress: upper, amount: [{ denom: 'uatom', amount: '1' }] })).finish() }]));
    expect(direct.legs).toEqual([{ to: payee, asset: 'uatom', amount: 1n }]);
    const amino = rawFacts(serializeSignDoc(makeSignDoc([{ type: 'cosmos-sdk/MsgSend', value: { from_address: wallet, to_address: upper, amount: [{ denom: 'uatom', amount: '1' }] } }], fee, 'cosmoshub-4', '', 1, 1)));
    expect(amino.legs).toEqual([{ to: payee, asset: 'uatom', amount: 1n }]);
    // What is not a bech32 address is kept as written (the chain refuses it).
    const odd = rawFacts(directSignBytes([{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(MsgSend.fromPartial({ fromAddress: wallet, toAddress: 'Not-Bech32', amount: [{ denom: 'uatom', amount: '1' }] })).finish() }]));
    expect(odd.legs[0]!.to).toBe('Not-Bech32');
  });

  it('amino JSON sign docs, by sign-raw or by sign-message (the same bytes are signed)', () => {
    const msgs: AminoMsg[] = [{ type: 'cosmos-sdk/MsgSend', value: { from_address: wallet, to_address: payee, amount: [{ denom: 'uatom', amount: '42' }] } }];
    const signDoc = makeSignDoc(msgs, fee, 'theta-testnet-001', 'memo', 3, 9);
    const bytes = serializeSignDoc(signDoc);
    for (const facts of [rawFacts(bytes), requestFactsOf(signingContext('COSMOS', wallet, 'message', { message: Buffer.from(bytes).toString('utf8') }))]) {
      expect(facts).toMatchObject({ action: 'raw_signature', network: 'cosmos:theta-testnet-001' });
      expect(facts.legs).toEqual([{ to: payee, asset: 'uatom', amount: 42n }]);
      expect(facts.facts['request.token.value.baseUnits']).toBe('42');
    }
    // Not the canonical serialization: the chain would verify other bytes, so nothing is read.
    const loose = rawFacts(Buffer.from(JSON.stringify(signDoc, null, 1)));
    expect(loose).toMatchObject({ network: null, legs: [] });
  });

  it('bytes that are no sign document carry no meaning', () => {
    for (const bytes of [randomBytes(32), Buffer.from('hello'), Buffer.from('{"chain_id":"x","msgs":[]')]) {
      const facts = rawFacts(bytes);
      expect(facts).toMatchObject({ action: 'raw_signature', network: null, legs: [], undecoded: null });
      expect(Object.keys(facts.facts)).toEqual(['wallet.id']);
    }
  });
});

