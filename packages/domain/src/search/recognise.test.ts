import { describe, expect, it } from 'vitest';
import { recogniseQuery } from './recognise.ts';

const evmAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const hash = `0x${'Ab'.repeat(32)}`;
const cosmos = 'cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu';
const stellar = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const solanaAddress = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const solanaSignature = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

const kinds = (query: string) => recogniseQuery(query).map((l) => l.kind);

describe('recogniseQuery', () => {
  it('tries a uuid as every id kind (lower-cased), and as a user identifier prefix', () => {
    expect(recogniseQuery('0B8E4C2A-1D5F-4E6A-9C3B-7A2D1E0F9B8C')).toEqual([
      { kind: 'id', id: '0b8e4c2a-1d5f-4e6a-9c3b-7a2d1e0f9b8c' },
      { kind: 'userPrefix', prefix: '0b8e4c2a-1d5f-4e6a-9c3b-7a2d1e0f9b8c' },
    ]);
  });

  it('reads 0x + 64 hex as a hash or a Sui address and 0x + 40 hex as an EVM address, both lower-cased', () => {
    expect(recogniseQuery(hash).slice(0, 2)).toEqual([
      { kind: 'hash', hash: hash.toLowerCase() },
      { kind: 'address', lower: hash.toLowerCase() },
    ]);
    expect(recogniseQuery(evmAddress)[0]).toEqual({ kind: 'address', lower: evmAddress.toLowerCase() });
  });

  it('reads bech32 and Stellar addresses case-insensitively', () => {
    expect(recogniseQuery(cosmos.toUpperCase())[0]).toEqual({ kind: 'address', lower: cosmos });
    expect(recogniseQuery(stellar.toLowerCase())[0]).toEqual({ kind: 'address', lower: stellar.toLowerCase() });
  });

  it('keeps base58 case-sensitive: a Solana address matches exactly, a signature is a hash', () => {
    expect(recogniseQuery(solanaAddress)[0]).toEqual({ kind: 'address', lower: solanaAddress.toLowerCase(), exact: solanaAddress });
    expect(recogniseQuery(solanaSignature)[0]).toEqual({ kind: 'hash', hash: solanaSignature });
  });

  it('reads evt_ ids as webhook events only', () => {
    expect(kinds('evt_AbC-12_x')).toEqual(['eventId', 'userPrefix']);
  });

  it('tries anything else only as a user identifier prefix, lower-cased', () => {
    expect(recogniseQuery('Ali')).toEqual([{ kind: 'userPrefix', prefix: 'ali' }]);
    expect(kinds('0x1234')).toEqual(['userPrefix']);
    expect(kinds(`${evmAddress}0`)).toEqual(['userPrefix']);
    expect(kinds('cosmos1MixedCaseqypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lz')).toEqual(['userPrefix']);
  });
});
