import { encodeAbiParameters, getAddress, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ChainInfo } from '../chains/service.ts';
import { ApiError } from '../errors.ts';
import { balanceCalls, decodeEvmBalances, tokensToRead } from './evm.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './ports.ts';
import { decodeSolanaBalances } from './solana.ts';

const evmChain: ChainInfo = {
  type: 'EVM',
  chainId: '84532',
  name: 'Base Sepolia',
  nativeCurrency: { symbol: 'ETH', decimals: 18 },
  usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
  isDevnet: true,
};
const owner = '0x1111111111111111111111111111111111111111';
const other = '0x00000000000000000000000000000000000000aa';
const uint = (n: bigint) => ({ ok: true as const, data: encodeAbiParameters([{ type: 'uint256' }], [n]) });
const text = (s: string) => ({ ok: true as const, data: encodeAbiParameters([{ type: 'string' }], [s]) });

describe('EVM balances', () => {
  it('reads USDC first, then each moved token once (case-insensitively, USDC not twice)', () => {
    const tokens = tokensToRead(evmChain, [other.toUpperCase().replace('0X', '0x'), other, evmChain.usdc!.address.toLowerCase(), 'not-an-address']);
    expect(tokens.map((t) => [t.address, t.known?.symbol ?? null])).toEqual([
      [evmChain.usdc!.address, 'USDC'],
      [getAddress(other), null],
    ]);
    // USDC: balanceOf; the other: balanceOf, decimals, symbol.
    expect(balanceCalls(owner, tokens)).toHaveLength(4);
  });

  it('formats every entry at the snapshot block; a bytes32 symbol is read, a token that is no ERC-20 is left out', () => {
    const mkr = '0x00000000000000000000000000000000000000bb';
    const tokens = tokensToRead(evmChain, [other, mkr]);
    const snapshot = {
      blockNumber: 42n,
      native: 1_500_000_000_000_000_000n,
      results: [uint(2_500_000n), { ok: false as const, revertData: null, message: 'reverted' }, uint(18n), text('X'), uint(7n), uint(0n), { ok: true as const, data: stringToHex('MKR', { size: 32 }) }],
    };
    // tokens: USDC, other (reverting balanceOf: left out), MKR (balance 7, 0 decimals, bytes32 symbol)
    expect(tokens.map((t) => t.address.toLowerCase())).toEqual([evmChain.usdc!.address.toLowerCase(), other, mkr]);
    expect(decodeEvmBalances(evmChain, tokens, snapshot)).toEqual([
      { asset: 'native', tokenAddress: null, symbol: 'ETH', decimals: 18, rawBalance: '1500000000000000000', balance: '1.5', blockNumber: 42 },
      { asset: 'erc20', tokenAddress: evmChain.usdc!.address, symbol: 'USDC', decimals: 6, rawBalance: '2500000', balance: '2.5', blockNumber: 42 },
      { asset: 'erc20', tokenAddress: getAddress(mkr), symbol: 'MKR', decimals: 0, rawBalance: '7', balance: '7', blockNumber: 42 },
    ]);
  });

  it('a configured USDC that answers no balance is 502 BALANCE_READ_FAILED', () => {
    const tokens = tokensToRead(evmChain, []);
    let error: unknown;
    try {
      decodeEvmBalances(evmChain, tokens, { blockNumber: 1n, native: 0n, results: [{ ok: true, data: '0x' }] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 'BALANCE_READ_FAILED' });
  });
});

describe('Solana balances', () => {
  const chain: ChainInfo = { type: 'SOLANA', network: 'SOLANA_DEVNET', name: 'devnet', nativeCurrency: { symbol: 'SOL', decimals: 9 }, usdc: { address: 'UsdcMint1111111111111111111111111111111111', decimals: 6 }, isDevnet: true };

  it('SOL, then USDC (listed without an account), then other mints with accounts of one mint summed', () => {
    const entries = decodeSolanaBalances(chain, {
      lamports: 2_000_000_001n,
      slot: 10n,
      programSlots: { [TOKEN_PROGRAM]: 11n, [TOKEN_2022_PROGRAM]: 12n },
      tokenAccounts: [
        { mint: 'Mint22', program: TOKEN_2022_PROGRAM, amount: 5n, decimals: 2, slot: 12n },
        { mint: 'Mint22', program: TOKEN_2022_PROGRAM, amount: 120n, decimals: 2, slot: 12n },
      ],
    });
    expect(entries).toEqual([
      { asset: 'native', tokenAddress: null, tokenProgram: null, symbol: 'SOL', decimals: 9, rawBalance: '2000000001', balance: '2.000000001', slot: 10 },
      { asset: 'spl', tokenAddress: chain.usdc!.address, tokenProgram: TOKEN_PROGRAM, symbol: 'USDC', decimals: 6, rawBalance: '0', balance: '0', slot: 11 },
      { asset: 'spl', tokenAddress: 'Mint22', tokenProgram: TOKEN_2022_PROGRAM, symbol: 'Mint22', decimals: 2, rawBalance: '125', balance: '1.25', slot: 12 },
    ]);
  });
});
